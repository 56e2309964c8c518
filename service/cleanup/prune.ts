// Applies an approved prune plan entry by entry. Each removal runs under its repository's lock and
// first surveys the entry again (recheck in core/prune-plan.ts): identity changes fail, live work
// skips. A worktree removal is close's sequence: teardown, panes and workspace (checked before the
// teardown, so a busy pane keeps everything), unlock, restore deleted tracked paths, `git worktree
// remove` without force, the branch only at its planned commit, the registration, and a check that
// the worktree is gone. Panes and workspaces close after a recheck by terminal id. Entries are
// independent.

import { lstat } from 'node:fs/promises';
import { AGENT_LOCK_REASON } from '../core/cleanup/loss-rule.js';
import { type PlanEntry, type Recheck, recheckBranch, recheckWorktree } from '../core/cleanup/prune-plan.js';
import { targetVerdict } from '../core/cleanup/target-rule.js';
import { messageOf } from '../core/common/errors.js';
import { isExpiredJob } from '../core/jobs/job-expiry.js';
import {
  deleteBranch,
  lockWorktree,
  removeWorktree,
  resolveRef,
  restoreDeleted,
  unlockWorktree,
} from '../git/mutate.js';
import type { FetchOutcome } from '../git/refs.js';
import { gitIO } from '../git/run-git.js';
import { listWorktrees } from '../git/worktrees.js';
import { readProcessTable } from '../process/process-table.js';
import { loadRepoConfig } from '../state/config/repo-config.js';
import { withLock } from '../state/engine/lock.js';
import { listJobRecords, removeJob } from '../state/records/job-records.js';
import {
  dropStaleRepositories,
  dropStaleWorktrees,
  dropWorktreeRegistration,
  pathIsAbsent,
  readRegistries,
} from '../state/records/registries.js';
import type { TerminalPort } from '../terminal/port.js';
import { removeTarget } from './build-targets.js';
import { runRepoCommands } from './commands.js';
import type { CleanupIO, CleanupSurvey } from './doctor.js';
import type { PruneFailure, PruneReport, PruneResult, PruneSkip } from './doctor-report.js';
import { repositoryLockPath } from './locks.js';
import type { PaneContext } from './panes/judge.js';
import { type Closure, prunePane, pruneWorkspace, type WorktreePanes } from './panes/prune-closures.js';
import { surveyRepository } from './survey.js';

/** All of a worktree's teardown commands together get this long. */
export const TEARDOWN_DEADLINE_MS = 5 * 60_000;

export interface PruneIO extends CleanupIO {
  /** Herdr's side of the removals; absent without Herdr (then no pane is closed). */
  closures?: PaneClosures;
}

export interface PaneClosures {
  port: TerminalPort;
  /** The pane rule's context as it is now: read again before each pane or workspace closure. */
  paneContext: () => Promise<PaneContext>;
  /** The panes and workspace that show a worktree, checked right before its teardown. */
  worktreePanes: (path: string) => Promise<WorktreePanes>;
}

export type Outcome =
  /** `skip` is set when the worktree went but its branch stayed because a new commit moved it. */
  | { kind: 'result'; result: PruneResult; skip?: PruneSkip }
  | { kind: 'skip'; skip: PruneSkip }
  | { kind: 'failure'; failure: PruneFailure; result?: PruneResult };

const branchOf = (entry: PlanEntry): string | null =>
  entry.kind === 'worktree' || entry.kind === 'branch' ? entry.branch : null;

function result(entry: PlanEntry, extra: Partial<PruneResult> = {}): Outcome {
  return {
    kind: 'result',
    result: {
      kind: entry.kind,
      path: pathOf(entry),
      branch: branchOf(entry),
      branch_deleted: false,
      panes: [],
      already_removed: false,
      detail: '',
      ...extra,
    },
  };
}

const skip = (entry: PlanEntry, reason: string): Outcome => ({
  kind: 'skip',
  skip: { kind: entry.kind, path: pathOf(entry), branch: branchOf(entry), reason },
});

const fail = (entry: PlanEntry, error: string): Outcome => ({
  kind: 'failure',
  failure: { kind: entry.kind, path: pathOf(entry), branch: branchOf(entry), error },
});

function pathOf(entry: PlanEntry): string {
  if (entry.kind === 'branch') return entry.repository;
  if (entry.kind === 'pane') return entry.pane;
  if (entry.kind === 'workspace') return entry.workspace;
  return entry.path;
}

function closureOutcome(entry: PlanEntry, closure: Closure): Outcome {
  switch (closure.kind) {
    case 'closed':
      return result(entry, { panes: closure.panes });
    case 'gone':
      return result(entry, { already_removed: true });
    case 'skipped':
      return skip(entry, closure.reason);
    case 'failed':
      return fail(entry, closure.reason);
  }
}

/** Applies `entries` in order; a failed or refused entry never stops the others. */
export async function applyPlan(
  io: PruneIO,
  survey: Pick<CleanupSurvey, 'fetches' | 'targets'>,
  entries: readonly PlanEntry[],
  onOutcome?: (outcome: Outcome) => void,
): Promise<PruneReport> {
  const report: PruneReport = { results: [], skipped: [], failures: [] };
  for (const entry of entries) {
    let outcome: Outcome;
    try {
      outcome = await applyEntry(io, survey, entry);
    } catch (error) {
      outcome = fail(entry, messageOf(error));
    }
    if (outcome.kind === 'result') {
      report.results.push(outcome.result);
      if (outcome.skip) report.skipped.push(outcome.skip);
    } else if (outcome.kind === 'skip') report.skipped.push(outcome.skip);
    else {
      if (outcome.result) report.results.push(outcome.result);
      report.failures.push(outcome.failure);
    }
    onOutcome?.(outcome);
  }
  return report;
}

async function applyEntry(
  io: PruneIO,
  survey: Pick<CleanupSurvey, 'fetches' | 'targets'>,
  entry: PlanEntry,
): Promise<Outcome> {
  switch (entry.kind) {
    case 'worktree':
      return withLock(repositoryLockPath(io.paths, entry.common_dir), () =>
        pruneWorktree(io, entry, survey.fetches.get(entry.repository) ?? null),
      );
    case 'branch':
      return withLock(repositoryLockPath(io.paths, entry.common_dir), () =>
        pruneBranch(io, entry, survey.fetches.get(entry.repository) ?? null),
      );
    case 'worktree-record': {
      const report = await dropStaleWorktrees(io, [entry.path], pathIsAbsent);
      if (report.dropped.length > 0) return result(entry, { detail: 'registration removed' });
      return skip(entry, report.kept[0]?.reason ?? 'kept');
    }
    case 'repository-record': {
      const report = await dropStaleRepositories(io, [entry.path], pathIsAbsent);
      if (report.dropped.length > 0) return result(entry, { detail: 'registration removed' });
      return skip(entry, report.kept[0]?.reason ?? 'kept');
    }
    case 'job': {
      const record = (await listJobRecords(io.paths)).records.find((job) => job.id === entry.id);
      if (record === undefined) return result(entry, { already_removed: true });
      if (!isExpiredJob(record, io.now())) return skip(entry, 'the job is no longer expired');
      const removal = await removeJob(io.paths, entry.id);
      return result(entry, { already_removed: removal.kind === 'gone' });
    }
    case 'target': {
      // Work may have started in the checkout since the plan: ask the process table again.
      const table = await readProcessTable();
      if (!table.ok) return skip(entry, `the process table cannot be read (${table.error})`);
      const verdict = targetVerdict(entry, {
        checkouts: [entry.checkout],
        workspaceCheckouts: io.workspaceCheckouts ?? [],
        busyPaths: table.processes.flatMap((proc) => (proc.cwd ? [proc.cwd] : [])),
        removedCheckouts: [],
      });
      if (verdict.kind !== 'removable') return skip(entry, verdict.reason);
      const removal = await removeTarget({ path: entry.path, bytes: entry.bytes });
      if (removal.kind === 'removed') return result(entry, { detail: `${removal.bytes} bytes` });
      if (removal.kind === 'gone') return result(entry, { already_removed: true });
      if (removal.kind === 'skipped') return skip(entry, removal.reason);
      return fail(entry, removal.reason);
    }
    case 'pane': {
      if (!io.closures) return fail(entry, 'needs Herdr or tmux');
      const planned = { pane: entry.pane, terminal_id: entry.terminal_id };
      return closureOutcome(
        entry,
        await prunePane(io.closures.port, planned, await io.closures.paneContext()),
      );
    }
    case 'workspace': {
      if (!io.closures) return fail(entry, 'needs Herdr or tmux');
      const planned = { workspace: entry.workspace, panes: entry.panes };
      const context = await io.closures.paneContext();
      return closureOutcome(entry, await pruneWorkspace(io.closures.port, planned, context));
    }
  }
}

function fetchOption(fetch: FetchOutcome | null): 'skip' | FetchOutcome {
  return fetch ?? 'skip';
}

async function pruneWorktree(
  io: PruneIO,
  entry: Extract<PlanEntry, { kind: 'worktree' }>,
  fetch: FetchOutcome | null,
): Promise<Outcome> {
  const git = gitIO(io);
  const registered = (await readRegistries(io)).worktrees;
  let now: Awaited<ReturnType<typeof surveyRepository>>;
  try {
    now = await surveyRepository(entry.repository, {
      fetch: fetchOption(fetch),
      callerCwd: io.callerCwd,
      registered,
      holds: io.holds,
      only: { worktree: entry.path },
      env: io.env,
      signal: io.signal,
    });
  } catch (error) {
    return fail(entry, `cannot recheck: ${messageOf(error)}`);
  }
  const found = now.worktrees.find((worktree) => worktree.facts.path === entry.path);
  const decision: Recheck = recheckWorktree(entry, {
    common_dir: now.commonDir,
    listed: now.listed,
    found: found && {
      branch: found.facts.branch,
      head: found.facts.head,
      exists: found.facts.exists,
      verdict: found.verdict,
    },
  });
  if (decision.action === 'fail') return fail(entry, decision.reason);
  if (decision.action === 'skip') return skip(entry, decision.reason);
  if (decision.action === 'gone') {
    await dropWorktreeRegistration(io, entry.path);
    return result(entry, { already_removed: true, detail: 'registration dropped' });
  }
  const verdict = found?.verdict;
  if (verdict?.kind !== 'removable') return fail(entry, 'recheck lost its verdict');
  const proof = verdict.proof;

  // Before anything runs: a pane that works in it, or in the workspace that shows it, keeps it.
  let closing: WorktreePanes | null = null;
  if (io.closures) {
    try {
      closing = await io.closures.worktreePanes(entry.path);
    } catch (error) {
      return fail(entry, messageOf(error));
    }
    if (closing.kind === 'busy') return skip(entry, closing.reason);
  }
  try {
    const config = await loadRepoConfig(entry.repository);
    await runRepoCommands(config.worktree.teardown, {
      cwd: entry.path,
      values: { main: entry.repository, path: entry.path, branch: entry.branch ?? '' },
      deadlineMs: TEARDOWN_DEADLINE_MS,
      what: 'teardown',
      signal: io.signal,
      env: io.env,
    });
  } catch (error) {
    return fail(entry, messageOf(error));
  }
  let panes: string[] = [];
  try {
    if (closing?.kind === 'ready') panes = await closing.close();
  } catch (error) {
    return fail(entry, messageOf(error));
  }
  try {
    if (proof.unlock) await unlockWorktree(entry.repository, entry.path, git);
    try {
      await restoreDeleted(entry.path, proof.restore, git);
      await removeWorktree(entry.repository, entry.path, git);
    } catch (error) {
      // Put dogsled's lock back, so the kept worktree stays marked as agent-owned.
      if (proof.unlock)
        await lockWorktree(entry.repository, entry.path, AGENT_LOCK_REASON, git).catch(() => {});
      throw error;
    }
  } catch (error) {
    return fail(entry, messageOf(error));
  }

  let branchDeleted = false;
  let detail = '';
  let branchSkip: PruneSkip | undefined;
  let branchError: string | null = null;
  if (proof.deleteBranch && entry.branch !== null) {
    try {
      const tip = await resolveRef(entry.repository, `refs/heads/${entry.branch}`, git);
      if (tip === entry.head) {
        await deleteBranch(entry.repository, entry.branch, git);
        branchDeleted = true;
      } else if (tip !== null) {
        // The branch-tip check: a new commit is live work, so the branch stays (a skip).
        detail = `branch ${entry.branch} kept: a new commit moved it`;
        branchSkip = {
          kind: 'branch',
          path: entry.repository,
          branch: entry.branch,
          reason: 'a new commit moved it',
        };
      }
    } catch (error) {
      branchError = messageOf(error);
    }
  }
  await dropWorktreeRegistration(io, entry.path);
  const removed = result(entry, { branch_deleted: branchDeleted, panes, detail });
  const listed = await listWorktrees(entry.repository, git).catch(() => null);
  const stillListed = listed === null || listed.some((worktree) => worktree.path === entry.path);
  if ((await exists(entry.path)) || stillListed) {
    return fail(
      entry,
      `still present after git worktree remove${listed === null ? ' (cannot list worktrees)' : ''}`,
    );
  }
  if (branchError !== null && removed.kind === 'result') {
    const failure: PruneFailure = {
      kind: entry.kind,
      path: entry.path,
      branch: entry.branch,
      error: `worktree removed; branch ${entry.branch} kept: ${branchError}`,
    };
    return { kind: 'failure', failure, result: removed.result };
  }
  return branchSkip && removed.kind === 'result' ? { ...removed, skip: branchSkip } : removed;
}

async function pruneBranch(
  io: PruneIO,
  entry: Extract<PlanEntry, { kind: 'branch' }>,
  fetch: FetchOutcome | null,
): Promise<Outcome> {
  const git = gitIO(io);
  let now: Awaited<ReturnType<typeof surveyRepository>>;
  try {
    now = await surveyRepository(entry.repository, {
      fetch: fetchOption(fetch),
      callerCwd: io.callerCwd,
      registered: [],
      holds: io.holds,
      only: { branch: entry.branch },
      env: io.env,
      signal: io.signal,
    });
  } catch (error) {
    return fail(entry, `cannot recheck: ${messageOf(error)}`);
  }
  const found = now.branches.find((branch) => branch.facts.name === entry.branch);
  const decision = recheckBranch(entry, {
    common_dir: now.commonDir,
    found: found && { sha: found.facts.sha, verdict: found.verdict },
  });
  if (decision.action === 'fail') return fail(entry, decision.reason);
  if (decision.action === 'skip') return skip(entry, decision.reason);
  if (decision.action === 'gone') return result(entry, { already_removed: true });
  // The survey read the tip a moment ago; read it once more right before the deletion.
  const tip = await resolveRef(entry.repository, `refs/heads/${entry.branch}`, git);
  if (tip !== entry.head) return skip(entry, 'a new commit moved it');
  await deleteBranch(entry.repository, entry.branch, git);
  return result(entry, { branch_deleted: true, detail: entry.reason });
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
