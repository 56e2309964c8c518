// What the pane rule needs to know about agents from dogsled's own files (spec, "Cleanup"): launch
// records (a final launch lets its empty shell close; an unfinished one keeps its pane), agent items
// (closed: the shell closes; open: kept), done marks (an agent pane needs one before it can go), the
// work each owner pane owns (open items, queued tickets) and each terminal's inbox (records waiting
// for a registered reader). Read without locks (writers replace files whole); a file that cannot be
// read adds no facts, which keeps panes, and an inbox that cannot be read keeps its pane: a doubtful
// case is kept.

import type { InboxFacts, OwnedWork, PaneRecord } from '../core/cleanup/pane-rule.js';
import { messageOf } from '../core/common/errors.js';
import { isUndelivered } from '../core/inbox/inbox.js';
import { inboxTerminals, readInbox } from '../inbox/inbox-files.js';
import type { StateIO } from '../state/io.js';
import { readDoneMarks } from '../state/records/done-marks.js';
import { launchPaneRecords, listLaunchRecords } from '../state/records/launch-files.js';
import { readItems, readQueue } from '../state/records/queue-items.js';

export interface AgentPaneFacts {
  records: Map<string, PaneRecord[]>;
  agentMarks: Map<string, { done: boolean; openChildren: number }>;
  /** Work each owner owns, keyed by the owner's pane id as its items and tickets name it. */
  owners: Map<string, OwnedWork>;
  /** Each terminal's inbox, keyed by terminal id; one reason for all when the directory cannot be listed. */
  inboxes: Map<string, InboxFacts> | { unreadable: string };
}

export async function agentPaneFacts(io: StateIO): Promise<AgentPaneFacts> {
  const [launches, items, marks, queue, inboxes] = await Promise.all([
    listLaunchRecords(io.paths).catch(() => ({ records: [], problems: [] })),
    readItems(io).catch(() => ({ version: 1 as const, items: [] })),
    readDoneMarks(io).catch(() => ({ version: 1 as const, marks: [] })),
    readQueue(io).catch(() => ({ version: 1 as const, tickets: [] })),
    inboxFacts(io),
  ]);
  const records = launchPaneRecords(launches.records);
  const owners = new Map<string, OwnedWork>();
  const owned = (owner: string): OwnedWork => {
    const work = owners.get(owner) ?? { items: 0, tickets: 0 };
    owners.set(owner, work);
    return work;
  };
  for (const item of items.items) {
    if (item.owner !== null && item.closed_ms === null) owned(item.owner).items += 1;
    if (item.kind !== 'agent' || item.terminal_id === null) continue;
    const list = records.get(item.terminal_id) ?? [];
    list.push({ kind: 'item', id: item.id, finished: item.closed_ms !== null });
    records.set(item.terminal_id, list);
  }
  for (const ticket of queue.tickets) {
    if (ticket.owner === null) continue;
    if (ticket.state === 'pending' || ticket.state === 'admitting') owned(ticket.owner).tickets += 1;
  }
  const agentMarks = new Map<string, { done: boolean; openChildren: number }>();
  for (const mark of marks.marks) {
    if (mark.terminal_id === null) continue;
    agentMarks.set(mark.terminal_id, { done: true, openChildren: 0 });
  }
  return { records, agentMarks, owners, inboxes };
}

/** Every inbox here: its undelivered records when a reader is registered, or why it cannot be read. */
async function inboxFacts(io: StateIO): Promise<Map<string, InboxFacts> | { unreadable: string }> {
  const facts = new Map<string, InboxFacts>();
  let terminals: string[];
  try {
    terminals = await inboxTerminals(io);
  } catch (error) {
    // Any pane may have records waiting there: every pane keeps, with why.
    return { unreadable: messageOf(error) };
  }
  for (const terminal of terminals) {
    try {
      const inbox = await readInbox(io, terminal);
      if (inbox === undefined) continue;
      const pending = inbox.reader === null ? 0 : inbox.records.filter(isUndelivered).length;
      facts.set(terminal, { pending });
    } catch (error) {
      facts.set(terminal, { unreadable: messageOf(error) });
    }
  }
  return facts;
}
