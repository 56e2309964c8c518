// What the pane rule needs to know about agents from dogsled's own files (spec, "Cleanup"): launch
// records (a final launch lets its empty shell close; an unfinished one keeps its pane), agent items
// (closed: the shell closes; open: kept) and done marks (an agent pane needs one before it can go).
// Read without locks (writers replace files whole); a file that cannot be read adds no facts, which
// keeps panes: a doubtful case is kept.

import { launchPaneRecords, listLaunchRecords } from '../agents/launch-files.js';
import type { PaneRecord } from '../core/pane-rule.js';
import { readDoneMarks } from '../state/done-marks.js';
import type { StateIO } from '../state/io.js';
import { readItems } from '../state/work.js';

export interface AgentPaneFacts {
  records: Map<string, PaneRecord[]>;
  agentMarks: Map<string, { done: boolean; openChildren: number }>;
}

export async function agentPaneFacts(io: StateIO): Promise<AgentPaneFacts> {
  const [launches, items, marks] = await Promise.all([
    listLaunchRecords(io.paths).catch(() => ({ records: [], problems: [] })),
    readItems(io).catch(() => ({ version: 1 as const, items: [] })),
    readDoneMarks(io).catch(() => ({ version: 1 as const, marks: [] })),
  ]);
  const records = launchPaneRecords(launches.records);
  for (const item of items.items) {
    if (item.kind !== 'agent' || item.terminal_id === null) continue;
    const list = records.get(item.terminal_id) ?? [];
    list.push({ kind: 'item', id: item.id, finished: item.closed_ms !== null });
    records.set(item.terminal_id, list);
  }
  const agentMarks = new Map<string, { done: boolean; openChildren: number }>();
  for (const mark of marks.marks) {
    if (mark.terminal_id === null) continue;
    agentMarks.set(mark.terminal_id, { done: true, openChildren: 0 });
  }
  return { records, agentMarks };
}
