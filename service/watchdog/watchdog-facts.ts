// What the watchdog judges, read from this host's files: the snapshot's agent panes, the owners'
// open items, ended job records (with their last log lines), parents.json and each owner's inbox
// reader. Reads only; watchdog.json is changed by the worker alone, under its lock.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { AgentPane } from '../core/agents/agent-pane-types.js';
import type { Item } from '../core/agents/item-types.js';
import type { ChildFacts, JobEvent, OwnerFacts } from '../core/agents/watchdog-rule.js';
import type { Parents, WatchdogState } from '../core/agents/watchdog-types.js';
import { JOB_LOG_LINES } from '../core/inbox/check-in-text.js';
import { readInbox } from '../inbox/inbox-files.js';
import { readState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { jobLogPath, listJobRecords } from '../state/records/job-records.js';
import { readParents } from '../state/records/parents.js';
import { readItems } from '../state/records/queue-items.js';
import { HostSnapshotSchema } from '../state/schemas/host-schemas.js';

/** A job log's tail is read from at most this many bytes: enough for five lines of any sane log. */
const LOG_TAIL_BYTES = 16 * 1024;

/**
 * What the agent work feeds the watchdog and the sweep about children: the orphaned children on this
 * host (done, owner gone), each as one line for every check-in here. Without it there are none.
 */
export interface ChildSource {
  orphans: () => Promise<string[]>;
}

export const NO_CHILDREN: ChildSource = { orphans: async () => [] };

export interface WatchdogFacts {
  panes: AgentPane[];
  items: Item[];
  parents: Parents | undefined;
  orphans: string[];
}

export async function readWatchdogFacts(io: StateIO, children: ChildSource): Promise<WatchdogFacts> {
  const [snapshot, items, parents, orphans] = await Promise.all([
    readState(io.paths.host, HostSnapshotSchema, io),
    readItems(io),
    readParents(io),
    children.orphans(),
  ]);
  return { panes: snapshot?.probe.agent_panes ?? [], items: items.items, parents, orphans };
}

function paneOf(
  item: Pick<Item, 'pane' | 'terminal_id'>,
  panes: readonly AgentPane[],
): AgentPane | undefined {
  if (item.terminal_id !== null) {
    const byTerminal = panes.find((p) => p.terminal_id === item.terminal_id);
    if (byTerminal) return byTerminal;
  }
  return item.pane === null ? undefined : panes.find((p) => p.pane === item.pane);
}

function activityText(pane: AgentPane): string | null {
  if (pane.activity === null) return null;
  return `${pane.activity.kind}: ${pane.activity.text}`;
}

/**
 * A child is named as its owner named it (`--name`, on the item), else as Herdr names its agent;
 * its pane follows, for `close` and `read`. Herdr's name can be gone (a restart clears it).
 */
function childLabel(name: string | null, pane: string): string {
  return name === null ? pane : `${name} (${pane})`;
}

/** One open child as a check-in note shows it, its pane read from the snapshot. */
export function childFacts(item: Item, panes: readonly AgentPane[]): ChildFacts {
  const base = {
    item: item.id,
    host: item.host,
    created_ms: item.created_ms,
    transcript_modified: null,
    stalled_since_ms: null,
    activity: null,
    command: item.command ?? null,
    pane: null,
  };
  if (item.kind === 'job') {
    return { ...base, kind: 'job', label: item.job ?? item.id, state: 'running', since_ms: item.created_ms };
  }
  const pane = paneOf(item, panes);
  if (pane === undefined) {
    return {
      ...base,
      kind: 'agent',
      label: item.name ?? item.pane ?? item.id,
      state: 'not seen',
      since_ms: item.created_ms,
    };
  }
  return {
    ...base,
    kind: 'agent',
    pane: pane.pane,
    label: childLabel(item.name ?? pane.name, pane.pane),
    state: pane.state,
    since_ms: pane.state_since_ms,
    transcript_modified: pane.transcript_modified,
    stalled_since_ms: pane.stalled_since_ms,
    activity: activityText(pane),
  };
}

/** The owners with open work or anything pending in watchdog.json. */
function ownersOf(items: readonly Item[], state: WatchdogState): string[] {
  const owners = new Set<string>();
  for (const item of items) if (item.owner !== null && item.closed_ms === null) owners.add(item.owner);
  for (const event of Object.values(state.events)) if (event.delivered_ms === null) owners.add(event.owner);
  for (const [owner, memory] of Object.entries(state.owners)) if (memory.pending !== null) owners.add(owner);
  return [...owners].sort();
}

export interface OwnerView {
  facts: OwnerFacts;
  /** The owner's terminal and pane, where its inbox is; undefined when Herdr shows no such agent. */
  terminal: string | undefined;
}

/** Each owner's facts, its reader looked up in its inbox file (one owner's broken inbox is only its own). */
export async function ownerViews(
  io: StateIO,
  facts: WatchdogFacts,
  state: WatchdogState,
  warn: (line: string) => void,
): Promise<OwnerView[]> {
  const views: OwnerView[] = [];
  for (const owner of ownersOf(facts.items, state)) {
    const mine = facts.items.filter((item) => item.owner === owner);
    const open = mine.filter((item) => item.closed_ms === null);
    const children = open.map((item) => childFacts(item, facts.panes));
    const lifecycle = [
      ...mine.map((item) => Math.max(item.created_ms, item.closed_ms ?? -Infinity)),
      ...children.filter((child) => child.kind === 'agent').map((child) => child.since_ms),
    ];
    const pane = facts.panes.find((p) => p.pane === owner);
    let reader = false;
    if (pane !== undefined) {
      try {
        reader = (await readInbox(io, pane.terminal_id))?.reader != null;
      } catch (error) {
        warn(`inbox of ${owner}: ${(error as Error).message}`);
      }
    }
    views.push({
      terminal: pane?.terminal_id,
      facts: {
        owner,
        state: pane?.state ?? null,
        reader,
        children,
        lifecycle_ms: lifecycle.length === 0 ? -Infinity : Math.max(...lifecycle),
        orphans: facts.orphans,
      },
    });
  }
  return views;
}

/** Jobs with an owner that ended since the watchdog's memory began and are not events yet. */
export async function newJobEvents(io: StateIO, state: WatchdogState): Promise<JobEvent[]> {
  const { records } = await listJobRecords(io.paths);
  const events: JobEvent[] = [];
  for (const record of records) {
    if (record.owner === null || record.ended_ms === null) continue;
    if (record.ended_ms < state.since_ms || state.events[record.id] !== undefined) continue;
    events.push({
      job: record.id,
      owner: record.owner,
      command: record.command,
      ended_ms: record.ended_ms,
      exit_code: record.exit_code,
      signal: record.signal,
      reason: record.reason,
      log: await logTail(jobLogPath(io.paths, record.id)),
    });
  }
  return events;
}

/** The last lines of a job log (raw, untrusted); none when it cannot be read. */
export async function logTail(file: string, lines = JOB_LOG_LINES): Promise<string[]> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // O_NONBLOCK: a FIFO in the log's place must never hang the watchdog.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const { size, isFile } = await handle.stat().then((s) => ({ size: s.size, isFile: s.isFile() }));
    if (!isFile) return [];
    const length = Math.min(size, LOG_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const text = buffer.toString('utf8').replace(/\r\n/g, '\n');
    const all = text.split('\n');
    if (size > length) all.shift();
    while (all.length > 0 && all[all.length - 1]?.trim() === '') all.pop();
    return all.slice(-lines);
  } catch {
    return [];
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
