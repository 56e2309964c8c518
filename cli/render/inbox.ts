// `inbox list` and `inbox claim` for scripts and people. Record text is untrusted: every string that
// came from a sender is escape-free here, in JSON too. `list` gives each received text whole (the
// preview a hook delivers points here); `claim` gives the delivery form, bounded like a hook's.

import type { Delivery, InboxListing, InboxRecord, SentRecord } from '../../service/actions/inbox-action.js';
import { formatAge } from '../../service/core/common/duration.js';
import { batchText, displayLines, previewText, senderLabel } from '../../service/core/inbox/inbox-text.js';
import { clip, plainLine, stripEscapes } from '../../service/core/text/clean.js';

function nullable(text: string | null): string | null {
  return text === null ? null : plainLine(text);
}

/** One record as JSON, with `text` in the form the caller asked for. */
export function recordView(record: InboxRecord, text: string) {
  return {
    id: record.id,
    kind: plainLine(record.kind),
    sender: {
      pane: nullable(record.sender.pane),
      terminal: nullable(record.sender.terminal),
      host: plainLine(record.sender.host),
      name: nullable(record.sender.name),
    },
    text,
    created_ms: record.created_ms,
    state: record.state,
    attempts: record.attempts,
    lease_until_ms: record.lease_until_ms,
    delivered_ms: record.delivered_ms,
    failed_ms: record.failed_ms,
    reason: nullable(record.reason),
  };
}

function sentView(sent: SentRecord) {
  return {
    ...recordView(sent.record, stripEscapes(sent.record.text)),
    to: { terminal: sent.terminal, pane: nullable(sent.pane) },
  };
}

/** `inbox list --json`: `{pane, terminal, received, sent, lines}`; lines is the display form. */
export function inboxListJson(listing: InboxListing, now: number): string {
  const document = {
    pane: listing.pane,
    terminal: listing.terminal,
    received: listing.received.map((record) => recordView(record, stripEscapes(record.text))),
    sent: listing.sent.map(sentView),
    lines: listing.received.flatMap((record) => displayLines(record, now)),
  };
  return `${JSON.stringify(document)}\n`;
}

/** `inbox list` for people: each received record whole, then one line per record sent. */
export function inboxListHuman(listing: InboxListing, now: number): string {
  const lines = [
    `inbox of ${listing.pane} (${listing.terminal}): ${listing.received.length} received, ${listing.sent.length} sent`,
  ];
  for (const record of listing.received) {
    const [head] = displayLines(record, now);
    lines.push(`  ${head}`);
    for (const line of stripEscapes(record.text).trimEnd().split('\n')) lines.push(`    ${line}`);
  }
  for (const { record, pane, terminal } of listing.sent) {
    const to = pane === null ? terminal : plainLine(pane);
    const state = record.state === 'failed' ? `failed: ${plainLine(record.reason ?? '')}` : record.state;
    const said = clip(plainLine(stripEscapes(record.text).trim()), 60);
    lines.push(
      `  ${record.id}  ${plainLine(record.kind)} to ${to}, ${formatAge(now - record.created_ms)} ago · ${state}: ${said}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `inbox claim`: the batch as one message (`text`, what a reader injects) and each record. */
export function claimJson(delivery: Delivery, now: number): string {
  const records = delivery.records;
  const document = {
    terminal: delivery.terminal,
    pane: delivery.pane,
    left: delivery.left,
    text: records.length === 0 ? null : batchText(records, now, delivery.left),
    records: records.map((record) => ({
      ...recordView(record, previewText(record)),
      from: senderLabel(record.sender),
    })),
  };
  return `${JSON.stringify(document)}\n`;
}
