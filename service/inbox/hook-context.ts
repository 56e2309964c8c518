// `hook context` (spec, "Prompt context and integrations"): the caller's own children, jobs and
// tickets, then the fleet as `status --brief` shows it. Nothing outside a Herdr or tmux pane or without a
// service snapshot. At SessionStart, Claude Code and Codex hooks also register the session's reader.

import type { SweepPass } from '../core/cleanup/sweep-types.js';
import { type OwnerPaneFacts, type OwnerWork, ownerWork } from '../core/inbox/owner-work.js';
import { workCounts } from '../core/placement/work-counts.js';
import { readLocalHost } from '../hosts/local-facts.js';
import type { HostView } from '../hosts/view.js';
import { readToLand } from '../queue/to-land-rows.js';
import type { HostIO } from '../state/io.js';
import { readItems, readQueue } from '../state/records/queue-items.js';
import { hookPane } from '../terminal/herdr/herdr-env.js';
import { type HookHarness, hasStateDir, hookCaller } from './hook-common.js';

export interface HookContext {
  owner: string;
  work: OwnerWork;
  hosts: HostView[];
  openItems: number;
  pendingTickets: number;
  /** Orphaned children the service keeps open on this host. */
  orphaned: number;
  /** This host's latest cleanup pass, and how many of its findings are in work the caller created. */
  sweep: SweepPass | null;
  ownFindings: number;
}

/**
 * `hook context`: the caller's own work, then the fleet. At SessionStart a Claude Code or Codex hook
 * also registers the session's reader, so messages reach a new agent from its first prompt on;
 * that registration is best effort and never costs the context.
 */
export async function contextHook(
  io: HostIO,
  harness: HookHarness,
  event: string,
): Promise<HookContext | undefined> {
  const owner = hookPane(io.env);
  if (owner === null || !hasStateDir(io)) return undefined;
  if (event === 'SessionStart' && harness !== 'pi') {
    // Loaded here only: a prompt's context hook reads no inbox.
    const { registerReader } = await import('./reader.js');
    await hookCaller(io, 'hook context')
      .then((at) => registerReader(io, at, harness))
      .catch(() => undefined);
  }
  const host = await readLocalHost(io);
  if (host.sample_ms === null) return undefined;
  const [items, queue] = await Promise.all([readItems(io), readQueue(io)]);
  const panes: OwnerPaneFacts[] = host.probe?.agent_panes ?? [];
  const { readLatestSweep } = await import('../sweep/sweep-files.js');
  const sweep = (await readLatestSweep(io).catch(() => undefined)) ?? null;
  const { ownerFindings } = await import('./gate.js');
  const own =
    sweep === null || !items.items.some((item) => item.owner === owner)
      ? []
      : await ownerFindings(io, owner, items.items, panes);
  // The board's and the stop gate's own rows: an unreadable branches.json costs the line, not the context.
  const toLand = await readToLand(io, owner, items.items, panes).catch(() => []);
  return {
    sweep,
    ownFindings: own.length,
    owner,
    work: ownerWork(owner, items.items, queue.tickets, panes, toLand),
    hosts: [host],
    ...workCounts(items.items, queue.tickets),
  };
}
