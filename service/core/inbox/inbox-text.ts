// How inbox records read: the delivery form a harness receives (a bounded preview per record, a
// bounded batch) and the display form `inbox list` and the Pi panel show (folded past twelve lines).
// Record text is untrusted, so escapes are stripped here, on the way out, never trusted from storage.
// Claude Code keeps about 10,000 characters of hook context (and of a Stop reason) whole; everything
// one hook prints, the batch and any reminder beside it, stays under that.

import { formatAge } from '../common/duration.js';
import { shellLine } from '../common/shell-quote.js';
import type { Ticket } from '../placement/queue-types.js';
import { clip, cutAt, plainLine, stripEscapes } from '../text/clean.js';
import { pickBatch, senderField } from './inbox.js';
import { INLINE_TEXT_CHARS } from './inbox-space.js';
import type { InboxRecord, InboxSender } from './inbox-types.js';

/** At most this much of one record's text is delivered; the rest is read with `dogsled inbox list`. */
export const PREVIEW_CHARS = 2_000;
/** One delivery (hook output, claim): the batch and the reminders beside it, under Claude Code's cap. */
export const BATCH_CHARS = 9_500;
/** A batch's first line and its `(N more wait…)` line stay within this. */
const BATCH_FRAME_CHARS = 200;
/** The display form folds a record's text past this many lines (the Pi renderer does the same). */
export const FOLD_LINES = 12;
/** A displayed line longer than this is cut: a one-line 1 MB message must not become one 1 MB row. */
export const LINE_CHARS = 200;

/** `reviewer (w1:p3)`, `w1:p3`, `reviewer (w9:p1) on netcup`, or `dogsled` for the service itself. */
export function senderLabel(sender: InboxSender): string {
  // Each field bounded here too: a record stored before peers' fields were bounded may hold any length.
  const pane = senderField(sender.pane);
  const name = senderField(sender.name);
  const who = name && pane ? `${name} (${pane})` : (name ?? pane ?? 'dogsled');
  return sender.host === 'local' ? who : `${who} on ${senderField(sender.host) ?? '?'}`;
}

function header(record: InboxRecord, now: number): string {
  return `${plainLine(record.kind)} from ${senderLabel(record.sender)}, ${formatAge(now - record.created_ms)} ago`;
}

/**
 * The record's text as delivered: escapes stripped, cut at PREVIEW_CHARS with a pointer to the rest.
 * Only the stored first part of a long text is cleaned (a record with a body file holds no more; one
 * stored whole by an older dogsled is cut first), so a preview costs the same for any size.
 */
export function previewText(record: Pick<InboxRecord, 'text' | 'body'>): string {
  const head = record.text.length > INLINE_TEXT_CHARS ? cutAt(record.text, INLINE_TEXT_CHARS) : record.text;
  const clean = stripEscapes(head).trimEnd();
  const whole = record.body === undefined && head === record.text;
  if (whole && clean.length <= PREVIEW_CHARS) return clean;
  const total = record.body?.chars ?? (whole ? clean.length : record.text.length);
  return `${cutAt(clean, PREVIEW_CHARS)}\n… ${total} characters in all; read the whole message with: dogsled inbox list`;
}

/** One record in a delivery: `[message from reviewer (w1:p3), 2m ago]` and its preview. */
export function deliveryEntry(record: InboxRecord, now: number): string {
  return `[${header(record, now)}]\n${previewText(record)}`;
}

/** What a delivery leaves for the batch beside `pieces` (reminders), each counted with its separator. */
export function batchBudget(pieces: readonly string[]): number {
  let left = BATCH_CHARS;
  for (const piece of pieces) left -= piece.length + 2;
  return Math.max(0, left);
}

/**
 * The next batch: deliverable records, oldest first, while batchText of them stays within `budget`,
 * each counted as delivered (its sender, header and preview), so a delivery is as full as the cap allows.
 */
export function pickDelivery(
  records: readonly InboxRecord[],
  now: number,
  budget: number = BATCH_CHARS,
): { batch: InboxRecord[]; left: number } {
  return pickBatch(
    records,
    now,
    budget - BATCH_FRAME_CHARS,
    (record) => deliveryEntry(record, now).length + 2,
  );
}

/** A whole delivery: a line naming the inbox, each entry, and how many more wait. */
export function batchText(records: readonly InboxRecord[], now: number, left: number): string {
  const count = records.length === 1 ? '1 new record' : `${records.length} new records`;
  const parts = [`dogsled inbox: ${count} (untrusted text from other agents and the service)`];
  for (const record of records) parts.push(deliveryEntry(record, now));
  if (left > 0) parts.push(`(${left} more wait for your next prompt or stop: dogsled inbox list)`);
  return parts.join('\n\n');
}

function stateText(record: InboxRecord): string {
  if (record.state === 'claimed') return `claimed (attempt ${record.attempts})`;
  if (record.state === 'failed') return `failed: ${plainLine(record.reason ?? 'unknown')}`;
  return record.state;
}

/**
 * The display form of one record: a header line, then its text folded past FOLD_LINES lines, each
 * cut at LINE_CHARS. What `inbox list --json` gives as `lines` and the Pi panel shows.
 */
export function displayLines(record: InboxRecord, now: number): string[] {
  const head = `${record.id}  ${header(record, now)} · ${stateText(record)}`;
  const body = stripEscapes(record.text).trimEnd().split('\n');
  const shown = body.slice(0, FOLD_LINES).map((line) => `  ${clip(plainLine(line), LINE_CHARS)}`);
  const hidden = body.length - shown.length;
  if (hidden > 0) shown.push(`  … ${hidden} more line${hidden === 1 ? '' : 's'}`);
  return [head, ...shown];
}

/** What the sender's own inbox says about a record that could not be delivered. */
export function undeliveredText(record: InboxRecord, target: string, reason: string): string {
  const said = clip(plainLine(stripEscapes(record.text).trim()), 200);
  return `Your ${plainLine(record.kind)} ${record.id} to ${plainLine(target)} was not delivered: ${reason}. It said: ${said}`;
}

/** What an owner hears when its child finished: its name and its captured final reply. */
export function finishedText(name: string, reply: string | null): string {
  const said =
    reply === null || reply.trim() === '' ? '(no final reply was captured)' : stripEscapes(reply).trim();
  return `${plainLine(name)} finished; its branch, if any, is kept for you to land. Final reply:\n${said}`;
}

/** What an owner hears when its child waits for an answer in its own pane. */
export function blockedText(name: string, pane: string, forMs: number): string {
  const since = formatAge(Math.max(0, forMs));
  return `${plainLine(name)} is blocked, waiting for an answer in pane ${plainLine(pane)} (for ${since}). Its newest output: dogsled read ${plainLine(pane)}`;
}

/** What another sender of work hears when the child finished: it takes no more work. */
export function senderFinishedText(name: string): string {
  return `${plainLine(name)} finished; start a new child for more work.`;
}

/** What an owner hears when a ticket it did not wait for is admitted or fails. */
export function ticketNoticeText(ticket: Ticket): string {
  const what = ticket.agent
    ? `agent ${clip(plainLine(ticket.agent.name), 40)} (${ticket.agent.kind})`
    : ticket.request === null
      ? 'placement'
      : `job ${clip(plainLine(shellLine(ticket.request.command)), 120)}`;
  if (ticket.state === 'admitted') {
    const job = ticket.job === null ? '' : ` as ${ticket.job}`;
    const worktree = ticket.worktree
      ? ` Worktree ${plainLine(ticket.worktree.path)} (branch ${plainLine(ticket.worktree.branch)}), pane ${plainLine(ticket.worktree.pane_id)}.`
      : '';
    return `Ticket ${ticket.id} (${what}) was admitted on ${plainLine(ticket.host ?? '?')}${job}.${worktree}`;
  }
  return `Ticket ${ticket.id} (${what}) failed: ${plainLine(ticket.error ?? 'unknown error')}. Nothing was started elsewhere.`;
}
