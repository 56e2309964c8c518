// `prune [--yes] [--host H] [category ...]`, from every front end: the doctor survey's removable
// entries as a plan, shown (UserIO.planned) and confirmed by the user (UserIO.ask; `yes` skips the
// question, never a check), then applied entry by entry with a recheck before each removal
// (service/cleanup/session.ts). On a peer (`--host`) the peer plans and applies (`host prune
// --plan|--yes` there, rechecking each entry as it removes it); the question is asked here. Each
// entry's outcome reaches UserIO.pruned as it is applied (a peer's once it answered).

import type { PruneReport } from '../cleanup/doctor-report.js';
import type { Outcome } from '../cleanup/prune.js';
import { pruneCleanup } from '../cleanup/session.js';
import { type PlanEntry, PRUNE_CATEGORIES, type PruneCategory } from '../core/cleanup/prune-plan.js';
import { DogsledError } from '../core/common/errors.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { hostOfFlag, remotePrune } from '../hosts/peer-cleanup.js';
import { type CleanupUserIO, cleanupCaller } from './doctor-action.js';

export type { PruneFailure, PruneReport, PruneResult, PruneSkip } from '../cleanup/doctor-report.js';
export type { Outcome as PruneOutcome } from '../cleanup/prune.js';

export interface PruneUserIO extends CleanupUserIO {
  /** The plan, before the question (and shown with `yes` too); never called for an empty one. */
  planned?: (plan: readonly PlanEntry[]) => void;
  /** Each entry's outcome as it is applied. */
  pruned?: (outcome: Outcome) => void;
}

export interface PruneRequest {
  /** The `--host` text (an id or label; `local` or none for this host). */
  host?: string;
  /** The categories to prune (pruneCategories); empty for all. */
  categories: readonly PruneCategory[];
  /** Apply without asking. */
  yes: boolean;
}

export type PruneDone =
  | { kind: 'nothing' }
  | { kind: 'declined'; interrupted: boolean }
  | { kind: 'applied'; report: PruneReport };

/** The category words, checked: an unknown one is refused before anything is surveyed. */
export function pruneCategories(words: readonly string[]): PruneCategory[] {
  const known = new Set<string>(PRUNE_CATEGORIES);
  for (const word of words) {
    if (!known.has(word)) {
      throw new DogsledError(
        `prune: unknown category "${word}" (choose from ${PRUNE_CATEGORIES.join(', ')})`,
      );
    }
  }
  return [...new Set(words)] as PruneCategory[];
}

export async function pruneHost(io: PruneUserIO, request: PruneRequest): Promise<PruneDone> {
  const peer = await hostOfFlag(io, request.host);
  let interrupted = false;
  const approve = async (plan: readonly PlanEntry[]): Promise<boolean> => {
    io.planned?.(plan);
    if (request.yes) return true;
    const count = `${plan.length} entr${plan.length === 1 ? 'y' : 'ies'}`;
    const answer = io.ask ? await io.ask(`Remove ${count}?`) : 'unasked';
    if (answer === 'unasked') {
      throw new DogsledError(
        'prune: not a terminal, so nothing was removed: pass --yes to remove the plan above',
      );
    }
    interrupted = answer === 'interrupted';
    return answer === 'yes';
  };
  if (peer !== null) {
    // The peer plans; the user answers here; the peer rechecks each entry as it removes it.
    let remote = await remotePrune(io, peer, request.categories, request.yes);
    for (const warning of remote.warnings) io.warn(`dogsled: warning: ${peer.label}: ${warning}`);
    if (remote.plan.length === 0) return { kind: 'nothing' };
    if (!(await approve(remote.plan))) return { kind: 'declined', interrupted };
    if (!request.yes) remote = await remotePrune(io, peer, request.categories, true);
    const { report } = remote;
    for (const result of report.results) io.pruned?.({ kind: 'result', result });
    for (const skip of report.skipped) io.pruned?.({ kind: 'skip', skip });
    for (const failure of report.failures) io.pruned?.({ kind: 'failure', failure });
    return { kind: 'applied', report };
  }
  const run = await pruneCleanup(
    io,
    cleanupCaller(io),
    { host: LOCAL_HOST.id, categories: request.categories },
    {
      warnings: (lines) => {
        for (const warning of lines) io.warn(`dogsled: warning: ${warning}`);
      },
      confirm: approve,
      ...(io.pruned ? { outcome: io.pruned } : {}),
    },
  );
  if (run.kind === 'nothing') return { kind: 'nothing' };
  if (run.kind === 'declined') return { kind: 'declined', interrupted };
  return { kind: 'applied', report: run.report };
}
