// The owner summary of prompt context (spec, "Prompt context and integrations"): an owner's own
// children, jobs and tickets, grouped by what the owner must do: work to land, attention (blocked or
// stalled children), idle, done, running, queued. Pure: items, tickets, this host's snapshot's agent
// panes and the owner's TO LAND rows in; hook context renders it above the fleet lines.

import type { Item } from '../agents/item-types.js';
import type { Ticket } from '../placement/queue-types.js';
import { factsFor, type LandPane, type LandRow } from './to-land-rule.js';

export interface OwnerPaneFacts extends LandPane {
  name: string | null;
  stalled_since_ms: number | null;
  state_since_ms: number;
}

export interface WorkEntry {
  /** `job j_abc`, `reviewer`, `t_abc`: what the entry is. */
  label: string;
  /** A job's or ticket's command, else null. */
  command: readonly string[] | null;
  /** `working`, `blocked`, `stalled`, `running`, `queued`, … */
  state: string;
  /** Since when it has been in that state (or open), for its age. */
  since_ms: number;
}

export interface OwnerWork {
  toLand: LandRow[];
  attention: WorkEntry[];
  idle: WorkEntry[];
  done: WorkEntry[];
  running: WorkEntry[];
  queued: WorkEntry[];
}

export function isEmptyWork(work: OwnerWork): boolean {
  return Object.values(work).every((list) => list.length === 0);
}

function agentEntry(
  item: Item,
  facts: OwnerPaneFacts | undefined,
): { group: keyof OwnerWork; entry: WorkEntry } {
  const label = item.name ?? facts?.name ?? item.pane ?? item.id;
  if (!facts)
    return {
      group: 'running',
      entry: { label, command: null, state: 'not seen', since_ms: item.created_ms },
    };
  if (facts.stalled_since_ms !== null) {
    return {
      group: 'attention',
      entry: { label, command: null, state: 'stalled', since_ms: facts.stalled_since_ms },
    };
  }
  const entry = { label, command: null, state: facts.state, since_ms: facts.state_since_ms };
  if (facts.state === 'blocked') return { group: 'attention', entry };
  if (facts.state === 'idle') return { group: 'idle', entry };
  if (facts.state === 'done') return { group: 'done', entry };
  return { group: 'running', entry };
}

/**
 * The owner's work, grouped: `toLand` is its TO LAND rows (core/to-land.ts, closed children's
 * included), then its other open items and unsettled tickets. A child with a row shows only there.
 */
export function ownerWork(
  owner: string,
  items: readonly Item[],
  tickets: readonly Ticket[],
  panes: readonly OwnerPaneFacts[],
  toLand: readonly LandRow[],
): OwnerWork {
  const work: OwnerWork = { toLand: [...toLand], attention: [], idle: [], done: [], running: [], queued: [] };
  const landing = new Set(work.toLand.map((row) => row.item));
  for (const item of items) {
    if (item.owner !== owner || item.closed_ms !== null || landing.has(item.id)) continue;
    if (item.kind === 'job') {
      work.running.push({
        label: `job ${item.job ?? item.id}`,
        command: item.command ?? null,
        state: 'running',
        since_ms: item.created_ms,
      });
      continue;
    }
    // The panes are this host's: pane and terminal ids repeat across hosts, so a child on a peer
    // is never judged by a local pane that happens to share its id.
    if (item.host !== 'local') {
      const label = item.name ?? item.pane ?? item.id;
      work.running.push({ label, command: null, state: `open on ${item.host}`, since_ms: item.created_ms });
      continue;
    }
    const { group, entry } = agentEntry(item, factsFor(item, panes));
    (work[group] as WorkEntry[]).push(entry);
  }
  for (const ticket of tickets) {
    if (ticket.owner !== owner || (ticket.state !== 'pending' && ticket.state !== 'admitting')) continue;
    work.queued.push({
      label: ticket.id,
      command: ticket.request?.command ?? null,
      state: ticket.state === 'pending' ? 'queued' : 'admitting',
      since_ms: ticket.created_ms,
    });
  }
  return work;
}
