// `hook context`'s common case read as a glance (pending-glance.ts says how): the caller has no work
// here, so the context is the fleet lines alone, built from this host's files read once each by
// hand (hosts/local-glance.ts, state/records/work-glance.ts) and the same rules and view the full
// hook (hook-context.ts) uses.

import { sweepCounts } from '../core/cleanup/sweep-rule.js';
import type { HookHarness } from '../core/inbox/hook-input.js';
import { ownerWork } from '../core/inbox/owner-work.js';
import { workCounts } from '../core/placement/work-counts.js';
import { glanceLocalFacts } from '../hosts/local-glance.js';
import { localView } from '../hosts/local-view.js';
import type { HostIO } from '../state/io.js';
import { glanceWork } from '../state/records/work-glance.js';
import type { HookContext } from './hook-context.js';

/**
 * The prompt context as contextHook (hook-context.ts) builds it when `owner` has no work here (no
 * item, no ticket) and the latest cleanup pass has nothing to say: the fleet lines alone. null when
 * there is nothing to show (no snapshot yet); undefined when the full hook must answer.
 */
export function glanceContext(
  io: HostIO,
  owner: string,
  harness: HookHarness,
  event: string,
): HookContext | null | undefined {
  // At SessionStart a Claude Code or Codex hook registers the session's reader: the full hook's.
  if (event === 'SessionStart' && harness !== 'pi') return undefined;
  const facts = glanceLocalFacts(io);
  if (facts === undefined) return undefined;
  if (facts.snapshot === null) return null;
  const work = glanceWork(io);
  if (work === undefined) return undefined;
  if (work.items.some((item) => item.owner === owner) || work.tickets.some((t) => t.owner === owner)) {
    return undefined;
  }
  const counts = work.sweep === null ? undefined : sweepCounts(work.sweep);
  // A pass that failed or warned gets a line of its own, worded by the full hook.
  if (counts !== undefined && (counts.failed > 0 || counts.warnings > 0)) return undefined;
  return {
    owner,
    work: ownerWork(owner, [], [], [], []),
    hosts: [localView(facts, io.config, io.now())],
    ...workCounts(work.items, work.tickets),
    sweep: null,
    ownFindings: 0,
  };
}
