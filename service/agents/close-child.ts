// Closing a child (spec, "Items and closing"), for `dogsled close PANE` and for the service once a
// child that called `dogsled done` ended its turn. Every refusal comes before any change. A pane in
// an agent worktree (locked agent:worktree) takes the worktree with it when it is the last one there:
// teardown, its panes and workspace, unlock, `git worktree remove` without force, the branch only
// when the loss rule holds its commits (`done` always keeps it), the registration, the idle anchor.
// Any other pane, or one whose checkout another agent, open item or pane still uses, closes alone.

import { basename } from 'node:path';
import { runRepoCommands } from '../cleanup/commands.js';
import { repositoryLockPath } from '../cleanup/locks.js';
import { readPanes, realOrSame } from '../cleanup/panes/pane-facts.js';
import { closing } from '../cleanup/panes/prune-closures.js';
import { TEARDOWN_DEADLINE_MS } from '../cleanup/prune.js';
import { surveyRepository } from '../cleanup/survey.js';
import { paneActivity } from '../core/cleanup/holds.js';
import { AGENT_LOCK_REASON } from '../core/cleanup/loss-rule.js';
import { contains } from '../core/cleanup/target-rule.js';
import { DogsledError, isDogsledError, messageOf } from '../core/common/errors.js';
import { quoted } from '../core/text/clean.js';
import { findCheckoutRoot, readDirty } from '../git/checkout-facts.js';
import {
  deleteBranch,
  lockWorktree,
  removeWorktree,
  resolveRef,
  restoreDeleted,
  unlockWorktree,
} from '../git/mutate.js';
import { repositoryAt } from '../git/repository.js';
import type { GitIO } from '../git/run-git.js';
import { loadRepoConfig } from '../state/config/repo-config.js';
import { withLock } from '../state/engine/lock.js';
import type { HostIO } from '../state/io.js';
import { readItems } from '../state/records/queue-items.js';
import { dropWorktreeRegistration, readRegistries } from '../state/records/registries.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Listing, Pane } from '../terminal/port-records.js';
import { closeIdleAnchor } from '../worktrees/anchor-close.js';

export interface CloseRequest {
  pane: string;
  /** The caller's pane (HERDR_PANE_ID), never closed and never the owner of what closes. */
  caller: string | null;
  /**
   * `close` keeps only what the loss rule holds; `done` keeps the branch whatever it holds; `orphan`
   * (the service closing an orphaned child) needs the loss rule like close, but keeps a branch whose
   * commits are only pushed, not integrated: nobody else is left to land it.
   */
  mode: 'close' | 'done' | 'orphan';
}

export interface ClosedWorktree {
  path: string;
  branch: string | null;
  workspace: string | null;
  branch_deleted: boolean;
  anchor_closed?: boolean;
}

export interface CloseResult {
  pane: string;
  worktree: ClosedWorktree | null;
  pane_closed: boolean;
}

/**
 * A refusal because closing would lose work or disturb live work (a dirty checkout, commits the loss
 * rule does not find held, a busy pane there): `held` says why in a few words, for the orphan check.
 */
export class KeepsWork extends DogsledError {
  constructor(
    readonly held: string,
    message: string,
  ) {
    super(message);
  }
}

export interface CloseIO extends HostIO {
  port: TerminalPort;
}

export async function closeChild(io: CloseIO, request: CloseRequest): Promise<CloseResult> {
  const { port } = io;
  const listing = await port.listAll();
  const target = listing.panes.find((pane) => pane.pane_id === request.pane);
  if (target === undefined) throw new DogsledError(`no pane ${quoted(request.pane)} in Herdr`);
  const callerTerminal = listing.panes.find((pane) => pane.pane_id === request.caller)?.terminal_id ?? null;
  if (request.pane === request.caller || target.terminal_id === callerTerminal) {
    throw new DogsledError(`${request.pane} is your own pane`);
  }
  const busy = await busyReason(port, listing, target);
  if (busy !== null) throw new KeepsWork(`busy: it ${busy}`, `pane ${request.pane} is busy: it ${busy}`);
  const git: GitIO = { env: io.env };
  const scope = await worktreeOf(target, git);
  if (scope === null) return closeAlone(port, request.pane);
  return withLock(
    repositoryLockPath(io.paths, scope.commonDir),
    () => closeInWorktree(io, request, listing, target, scope),
    {
      timeoutMs: 30_000,
    },
  ).catch((error: unknown) => {
    if (
      isDogsledError(error) &&
      error.message.startsWith(`lock on ${basename(repositoryLockPath(io.paths, scope.commonDir))}:`)
    ) {
      throw new DogsledError(`repository ${scope.main} is busy: ${error.message}`, { cause: error });
    }
    throw error;
  });
}

interface Scope {
  main: string;
  commonDir: string;
  path: string;
  branch: string | null;
  locked: string | null;
}

/** The agent worktree the pane works in, or null when it closes alone (no repository, main checkout, unlocked). */
async function worktreeOf(pane: Pane, git: GitIO): Promise<Scope | null> {
  const cwd = pane.foreground_cwd ?? pane.cwd;
  if (cwd === undefined) return null;
  const root = await findCheckoutRoot(cwd).catch(() => null);
  if (root === null) return null;
  const repository = await repositoryAt(root, git).catch(() => null);
  if (repository === null || repository.main === null) return null;
  const real = await realOrSame(root);
  for (const worktree of repository.worktrees) {
    if (worktree.main || (await realOrSame(worktree.path)) !== real) continue;
    if (worktree.locked === null) return null;
    if (worktree.locked !== AGENT_LOCK_REASON) {
      const why = worktree.locked === '' ? 'without a reason' : `with reason "${worktree.locked}"`;
      throw new DogsledError(`worktree ${worktree.path} is locked ${why}, not by dogsled`);
    }
    return {
      main: repository.main,
      commonDir: repository.commonDir,
      path: worktree.path,
      branch: worktree.branch === null ? null : worktree.branch.replace(/^refs\/heads\//, ''),
      locked: worktree.locked,
    };
  }
  return null;
}

async function closeInWorktree(
  io: CloseIO,
  request: CloseRequest,
  listing: Listing,
  target: Pane,
  scope: Scope,
): Promise<CloseResult> {
  const { port } = io;
  const config = await loadRepoConfig(scope.main);
  const dir = await realOrSame(config.worktree.dir_path);
  const real = await realOrSame(scope.path);
  if (!contains(dir, real) || real === dir) {
    throw new DogsledError(
      `worktree ${scope.path} is outside the repository's worktree directory ${config.worktree.dir_path}`,
    );
  }
  if (scope.branch === null)
    throw new DogsledError(`worktree ${scope.path} is detached: no branch would keep its commits`);
  const workspace =
    listing.workspaces.find(
      (ws) =>
        ws.worktree !== undefined &&
        ws.worktree.checkout_path !== undefined &&
        samePath(ws.worktree.checkout_path, scope.path),
    )?.workspace_id ?? null;
  const callerPane = listing.panes.find((pane) => pane.pane_id === request.caller);
  if (callerPane !== undefined) {
    if (workspace !== null && callerPane.workspace_id === workspace) {
      throw new DogsledError(`worktree ${scope.path} is shown in your own workspace ${workspace}`);
    }
    const callerCwd = callerPane.foreground_cwd ?? callerPane.cwd;
    if (callerCwd !== undefined && contains(real, await realOrSame(callerCwd))) {
      throw new DogsledError(`you work in worktree ${scope.path}`);
    }
  }
  // The other panes that use the checkout: another agent or an open item keeps it (the target
  // closes alone); a busy shell refuses; idle shells close with it.
  const users = await usersOf(io, listing, target, scope.path, workspace);
  if (users.busy !== null)
    throw new KeepsWork(`in use: ${users.busy}`, `worktree ${scope.path} is in use: ${users.busy}`);
  if (users.keep !== null) return closeAlone(port, request.pane);

  const git: GitIO = { env: io.env };
  if (await readDirty(scope.path, git)) {
    throw new KeepsWork('dirty', `worktree ${scope.path} has uncommitted changes: commit them first`);
  }
  let deleteTheBranch = false;
  let restore: string[] = [];
  if (request.mode !== 'done') {
    const survey = await surveyRepository(scope.main, {
      fetch: 'run',
      callerCwd: null,
      registered: (await readRegistries(io)).worktrees,
      only: { worktree: scope.path },
      env: io.env,
    });
    const found = survey.worktrees.find((entry) => samePath(entry.facts.path, scope.path));
    const verdict = found?.verdict;
    if (verdict?.kind !== 'removable') {
      const why = verdict?.reason ?? 'it cannot be checked';
      // Commits only this branch has are what an orphan's status calls unpushed; the refusal says
      // what would let the close go ahead.
      const unblock = why.startsWith('local work: ')
        ? `; push ${scope.branch} (git push origin ${scope.branch}) or land it in the default branch, then close again`
        : '';
      throw new KeepsWork(
        why.replace(/^local work: /, 'unpushed: '),
        `worktree ${scope.path} keeps work: ${why}${unblock}`,
      );
    }
    deleteTheBranch =
      verdict.proof.deleteBranch && (request.mode === 'close' || verdict.proof.commits.kind !== 'held');
    restore = verdict.proof.restore;
  }
  const head = await resolveRef(scope.main, `refs/heads/${scope.branch}`, git);

  try {
    await runRepoCommands(config.worktree.teardown, {
      cwd: scope.path,
      values: { main: scope.main, path: scope.path, branch: scope.branch },
      deadlineMs: TEARDOWN_DEADLINE_MS,
      what: 'teardown',
      env: io.env,
    });
  } catch (error) {
    throw new DogsledError(
      `worktree ${scope.path}: ${messageOf(error)}; the worktree, its panes and item stay`,
      {
        cause: error,
      },
    );
  }
  const closed = await closePanes(port, [target.pane_id, ...users.idle], workspace);
  await unlockWorktree(scope.main, scope.path, git);
  try {
    await restoreDeleted(scope.path, restore, git);
    await removeWorktree(scope.main, scope.path, git);
  } catch (error) {
    await lockWorktree(scope.main, scope.path, AGENT_LOCK_REASON, git).catch(() => undefined);
    throw new DogsledError(`cannot remove worktree ${scope.path}: ${messageOf(error)}`, { cause: error });
  }
  let branchDeleted = false;
  if (
    deleteTheBranch &&
    head !== null &&
    (await resolveRef(scope.main, `refs/heads/${scope.branch}`, git)) === head
  ) {
    await deleteBranch(scope.main, scope.branch, git);
    branchDeleted = true;
  }
  await dropWorktreeRegistration(io, scope.path);
  const anchor = await closeIdleAnchor(port, {
    main: scope.main,
    commonDir: scope.commonDir,
    callerWorkspace: callerPane?.workspace_id ?? null,
  });
  return {
    pane: request.pane,
    worktree: {
      path: scope.path,
      branch: scope.branch,
      workspace,
      branch_deleted: branchDeleted,
      ...(anchor === null ? {} : { anchor_closed: anchor }),
    },
    pane_closed: closed,
  };
}

interface Users {
  /** Why the checkout stays (the target closes alone), else null. */
  keep: string | null;
  /** Why close refuses: a pane there runs a command. */
  busy: string | null;
  /** Idle shells that close with the worktree. */
  idle: string[];
}

async function usersOf(
  io: CloseIO,
  listing: Listing,
  target: Pane,
  path: string,
  workspace: string | null,
): Promise<Users> {
  const real = await realOrSame(path);
  const inside = async (dir: string | undefined) =>
    dir !== undefined && contains(real, await realOrSame(dir));
  const others: Pane[] = [];
  for (const pane of listing.panes) {
    if (pane.pane_id === target.pane_id) continue;
    if (pane.workspace_id === workspace || (await inside(pane.cwd)) || (await inside(pane.foreground_cwd)))
      others.push(pane);
  }
  const users: Users = { keep: null, busy: null, idle: [] };
  if (others.length === 0) return users;
  const open = (await readItems(io)).items.filter((item) => item.closed_ms === null);
  const read = await readPanes(io.port, { ...listing, panes: others });
  for (const pane of read) {
    const id = pane.info.pane_id;
    const item = open.find((entry) => entry.pane === id || entry.terminal_id === pane.info.terminal_id);
    if (pane.hold.agent !== null) users.keep ??= `pane ${id} runs ${pane.hold.agent.kind ?? 'an agent'}`;
    else if (item !== undefined) users.keep ??= `pane ${id} has the open item ${item.id}`;
    else if (paneActivity(pane.hold) !== null) users.busy ??= `pane ${id} ${paneActivity(pane.hold)}`;
    else users.idle.push(id);
  }
  return users;
}

/** Why the target may not close now: an agent that is not idle or done, or a shell running something. */
async function busyReason(port: TerminalPort, listing: Listing, target: Pane): Promise<string | null> {
  const agent = listing.agents.find((entry) => entry.terminal_id === target.terminal_id);
  if (agent !== undefined || target.agent !== undefined) {
    const status = agent?.agent_status ?? target.agent_status ?? 'unknown';
    if (status === 'idle' || status === 'done') return null;
    return `runs ${agent?.agent ?? target.agent ?? 'an agent'}, which is ${status}`;
  }
  const [read] = await readPanes(port, { ...listing, panes: [target] });
  if (read === undefined) return 'is gone';
  return paneActivity(read.hold);
}

async function closeAlone(port: TerminalPort, pane: string): Promise<CloseResult> {
  return { pane, worktree: null, pane_closed: await closePanes(port, [pane], null) };
}

/** Closes the workspace (with its panes) and the other panes; true when the first pane was closed. */
async function closePanes(
  port: TerminalPort,
  panes: readonly string[],
  workspace: string | null,
): Promise<boolean> {
  const listing = await port.listAll();
  const inWorkspace = new Set(
    listing.panes.filter((p) => p.workspace_id === workspace).map((p) => p.pane_id),
  );
  let first = false;
  if (workspace !== null) {
    const closed = await closing(() => port.closeWorkspace(workspace));
    if (closed && inWorkspace.has(panes[0] ?? '')) first = true;
  }
  for (const [index, pane] of panes.entries()) {
    if (inWorkspace.has(pane) && workspace !== null) continue;
    const closed = await closing(() => port.closePane(pane));
    if (index === 0) first = closed;
  }
  return first;
}

function samePath(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}
