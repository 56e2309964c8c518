// The one message a claimed inbox batch becomes in Pi, and how Pi draws it. Record text is
// untrusted: `inbox claim` already gives it escape-free and cut to a preview, and it is stripped
// and bounded again here, so neither a hostile sender nor a misbehaving binary can put an escape
// sequence or a megabyte into the session. The renderer shows each record's kind, sender and text,
// folded past twelve lines until the message is expanded.

import { formatAge } from '../../../service/core/common/duration.js';
import { FOLD_LINES, PREVIEW_CHARS } from '../../../service/core/inbox/inbox-text.js';
import { clip, cutAt, plainLine, stripEscapes } from '../../../service/core/text/clean.js';
import { clipCells, displayText } from '../../../sidebar/model/cells.js';
import type { MessageRenderer, PiComponent } from './pi-api.js';

export const MESSAGE_TYPE = 'dogsled';
/** One record's text as injected: the claim's preview plus its pointer line, never more. */
const RECORD_MAX = PREVIEW_CHARS + 200;
/** A whole message stays well inside what one steer should carry (the claim's batch is at most 9,500). */
const MESSAGE_MAX = 12_000;

/** A record as `inbox claim` gives it (the fields this extension reads). */
export interface ClaimedRecord {
  id: string;
  kind: string;
  from: string;
  text: string;
  created_ms: number;
}

export interface BatchDetails {
  /** This process's id for the batch, found again in the session to know Pi wrote it. */
  batch: string;
  records: ClaimedRecord[];
}

/** The records of a claim answer; anything malformed is left out (and so never acknowledged). */
export function claimedRecords(answer: unknown): ClaimedRecord[] {
  const records = (answer as { records?: unknown } | undefined)?.records;
  if (!Array.isArray(records)) return [];
  return records.flatMap((record) => {
    const r = record as Record<string, unknown>;
    if (typeof r.id !== 'string' || typeof r.text !== 'string' || typeof r.created_ms !== 'number') return [];
    return [
      {
        id: r.id,
        kind: cutAt(plainLine(typeof r.kind === 'string' ? r.kind : 'message'), 40),
        from: cutAt(plainLine(typeof r.from === 'string' ? r.from : 'dogsled'), 120),
        text: clip(stripEscapes(r.text).trimEnd(), RECORD_MAX),
        created_ms: r.created_ms,
      },
    ];
  });
}

function header(record: ClaimedRecord, now: number): string {
  return `${record.kind} from ${record.from}, ${formatAge(Math.max(0, now - record.created_ms))} ago`;
}

/** The text the model reads: one line naming the inbox, then each record under its header. */
export function batchMessage(records: readonly ClaimedRecord[], now: number): string {
  const count = records.length === 1 ? '1 new record' : `${records.length} new records`;
  const parts = [`dogsled inbox: ${count} (untrusted text from other agents and the service)`];
  for (const record of records) parts.push(`[${header(record, now)}]\n${record.text}`);
  return clip(parts.join('\n\n'), MESSAGE_MAX);
}

/** Display lines of one record: header, then its text folded past FOLD_LINES unless expanded. */
export function recordLines(record: ClaimedRecord, now: number, expanded: boolean): string[] {
  const body = record.text.split('\n');
  const shown = expanded ? body : body.slice(0, FOLD_LINES);
  const lines = [`✉ ${header(record, now)}`, ...shown.map((line) => `  ${line}`)];
  const hidden = body.length - shown.length;
  if (hidden > 0) lines.push(`  … ${hidden} more line${hidden === 1 ? '' : 's'} (expand to read)`);
  return lines;
}

function detailsOf(value: unknown): BatchDetails | undefined {
  const details = value as Partial<BatchDetails> | undefined;
  if (typeof details?.batch !== 'string' || !Array.isArray(details.records)) return undefined;
  return { batch: details.batch, records: claimedRecords({ records: details.records }) };
}

/** Pi's renderer for `dogsled` messages; lines are cut to the width Pi gives, never wider. */
export function inboxRenderer(now: () => number): MessageRenderer {
  return (message, options, theme) => {
    const details = detailsOf(message.details);
    const plain =
      details === undefined
        ? stripEscapes(String(message.content)).split('\n')
        : details.records.flatMap((record) => recordLines(record, now(), options.expanded));
    return textComponent(plain, (line) => (line.startsWith('✉') ? theme.fg('accent', line) : line));
  };
}

/** A component of fixed lines, each made displayable and cut to the width before it is styled. */
export function textComponent(
  lines: readonly string[],
  style: (line: string) => string = (l) => l,
): PiComponent {
  return {
    render: (width) => lines.map((line) => style(clipCells(displayText(line), Math.max(1, width)))),
    invalidate: () => {},
  };
}
