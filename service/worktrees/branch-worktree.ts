// `--branch` on this host (spec, "Repository configuration", steps 1-5): refuse what cannot work,
// reuse the branch's worktree without setup, or make it (`git worktree add`, locked agent:worktree),
// run the repository's setup there (a failure removes the worktree and the branch it made), then open
// it in Herdr without focus and note the anchor workspace Herdr opened for it. Every refusal comes
// before any change; the repository's lock is held throughout, so two callers never race on one
// branch and prune never removes what is being made. Lock order: repository lock, then registries.

import { lstat, realpath } from 'node:fs/promises';
import { basename } from 'node:path';
import { runRepoCommands } from '../cleanup/commands.js';
import { repositoryLockPath } from '../cleanup/locks.js';
import { branchWorktreePlan, worktreeNameProblem, worktreePathFor } from '../core/agents/branch-rule.js';
import { AGENT_LOCK_REASON } from '../core/cleanup/loss-rule.js';
import { DogsledError, isDogsledError, messageOf } from '../core/common/errors.js';
import { SETUP_CAP_MS } from '../core/placement/budget.js';
import { plainLine, quoted } from '../core/text/clean.js';
import { deleteBranch } from '../git/mutate.js';
import { defaultBranchOf, type GitRef, readRefs } from '../git/refs.js';
import { type RepositoryIdentity, repositoryAt } from '../git/repository.js';
import type { GitIO } from '../git/run-git.js';
import {
  addLockedWorktree,
  branchNameProblem,
  discardNewWorktree,
  resolveCommit,
} from '../git/worktree-add.js';
import { type GitWorktree, listWorktrees } from '../git/worktrees.js';
import { loadRepoConfig } from '../state/config/repo-config.js';
import { LOCK_TIMEOUT_MS, withLock } from '../state/engine/lock.js';
import type { ProcessIO } from '../state/io.js';
import {
  dropWorktreeRegistration,
  readRegistries,
  rememberRepository,
  rememberWorktree,
} from '../state/records/registries.js';
import { openTerminal } from '../terminal/open.js';
import type { TerminalPort, WorktreeList } from '../terminal/port.js';
import { needsTerminal } from '../terminal/terminal-errors.js';
import type { Deadline } from '../time/deadline.js';
import { mark } from '../time/timing.js';
import { writeAnchor } from './anchor.js';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export interface BranchWorktreeRequest {
  /** Any path inside the repository: the caller's directory, `--cwd` or `--repo`. */
  repo: string;
  branch: string;
  base?: string | undefined;
  /** The command asking (`agent`, `place`, `run`), for `<command> needs Herdr or tmux (...)`. */
  command: string;
}

export interface BranchWorktreeIO extends ProcessIO {
  /** An already opened terminal; otherwise one is opened with openTerminal. */
  terminal?: TerminalPort;
  /** The command's `--max`: setup gets what remains, capped at 10 minutes; the lock wait at 30 s. */
  deadline?: Deadline;
  /** The longest wait for the repository's lock (default 30 s). */
  lockTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface BranchWorktree {
  path: string;
  branch: string;
  /** The repository's main checkout. */
  repository: string;
  /** False when the branch's existing worktree was reused (and no setup ran). */
  created: boolean;
  /** The Herdr workspace that now shows the worktree, and its root pane. */
  workspace: string;
  pane: string;
  /** The main checkout's workspace that Herdr opened as the anchor for it, else null. */
  anchor: string | null;
}

/**
 * The refusals that need no lock (not a repository, a bad branch or base name, no Herdr), for a
 * caller to make before it places anything; ensureBranchWorktree makes them again itself.
 */
export async function checkBranchRequest(
  request: BranchWorktreeRequest,
  deps: Pick<BranchWorktreeIO, 'env' | 'home' | 'terminal'>,
): Promise<{ repository: Repository; terminal: TerminalPort }> {
  const { branch } = request;
  const git: GitIO = { env: deps.env };
  const repository = await identify(request.repo, git);
  // Git takes C1 controls (U+0080-U+009F) in names, and a terminal would act on them in any message.
  const nameProblem = CONTROL.test(branch)
    ? 'it contains a control character'
    : ((await branchNameProblem(repository.main, branch, git)) ?? worktreeNameProblem(branch));
  if (nameProblem !== null) throw new DogsledError(`--branch ${quoted(branch)}: ${nameProblem}`);
  if (request.base !== undefined && CONTROL.test(request.base)) {
    throw new DogsledError(`--base ${quoted(request.base)}: it contains a control character`);
  }
  const terminal =
    deps.terminal ?? (await openTerminal({ env: deps.env, home: deps.home, commandName: request.command }));
  if (terminal.kind === 'headless') throw needsTerminal(request.command, terminal.why);
  return { repository, terminal };
}

export async function ensureBranchWorktree(
  request: BranchWorktreeRequest,
  deps: BranchWorktreeIO,
): Promise<BranchWorktree> {
  const { repository, terminal } = await checkBranchRequest(request, deps);
  const main = repository.main;
  const config = await loadRepoConfig(main);
  const lockFile = repositoryLockPath(deps.paths, repository.commonDir);
  try {
    const timeoutMs = Math.min(
      deps.lockTimeoutMs ?? LOCK_TIMEOUT_MS,
      deps.deadline?.allowance('routine') ?? LOCK_TIMEOUT_MS,
    );
    return await withLock(lockFile, () => underLock(request, deps, repository, main, config, terminal), {
      timeoutMs,
    });
  } catch (error) {
    if (isDogsledError(error) && error.message.startsWith(`lock on ${basename(lockFile)}:`)) {
      throw new DogsledError(`repository ${main} is busy: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

type RepoConfig = Awaited<ReturnType<typeof loadRepoConfig>>;
type Repository = RepositoryIdentity & { main: string };

async function underLock(
  request: BranchWorktreeRequest,
  deps: BranchWorktreeIO,
  repository: Repository,
  main: string,
  config: RepoConfig,
  terminal: TerminalPort,
): Promise<BranchWorktree> {
  const { branch } = request;
  const git: GitIO = { env: deps.env };
  const base = request.base ?? null;
  // Read again under the lock: the survey before it may be stale by now.
  const [worktrees, refs, shown] = await Promise.all([
    listWorktrees(main, git),
    readRefs(main, git),
    // Herdr's view too: failing to read it is a refusal, before any change.
    terminal.listWorktrees({ cwd: main }),
  ]);
  const existing = worktrees.find((worktree) => worktree.branch === `refs/heads/${branch}`) ?? null;
  const newPath = worktreePathFor(config.worktree.dir_path, branch);
  const defaults = defaultBranchOf(refs);
  const plan = branchWorktreePlan({
    branch,
    base,
    baseCommit: base === null ? null : await resolveCommit(main, base, git),
    localTip: tipOf(refs, `refs/heads/${branch}`),
    remoteTip: tipOf(refs, `refs/remotes/origin/${branch}`),
    defaultBranch: {
      name: defaults.name,
      localTip: tipOf(refs, `refs/heads/${defaults.name}`),
      remoteTip: tipOf(refs, `refs/remotes/origin/${defaults.name}`),
    },
    worktree: existing && {
      path: existing.path,
      main: existing.main,
      locked: existing.locked,
      prunable: existing.prunable,
    },
    shownIn: existing === null ? null : await shownIn(shown, existing.path),
    newPath,
    newPathTaken: existing === null ? await pathTaken(newPath, worktrees) : null,
  });
  if (plan.kind === 'refuse') throw new DogsledError(plan.reason);

  await registry('repositories.json', () => rememberRepository(deps, main));
  if (plan.kind === 'reuse') {
    const opened = await openInHerdr(terminal, main, plan.path, shown, repository.commonDir);
    const record = (await readRegistries(deps)).worktrees.find((entry) => entry.path === plan.path);
    const anchor = opened.anchor;
    if (record && anchor !== null) {
      await registry('worktrees.json', () => rememberWorktree(deps, { ...record, anchor_workspace: anchor }));
    }
    return { path: plan.path, branch, repository: main, created: false, ...opened };
  }

  // Registered before git makes it: a registry that cannot be written stops here with nothing made,
  // and a crash right after leaves a record whose path is absent, which prune drops.
  const record = await registry('worktrees.json', () =>
    rememberWorktree(deps, { path: plan.path, repository: main, branch, created_ms: deps.now() }),
  );
  try {
    await addLockedWorktree(
      main,
      {
        path: plan.path,
        branch,
        create: plan.start === null ? null : { start: plan.start },
        lockReason: AGENT_LOCK_REASON,
      },
      git,
    );
  } catch (error) {
    await dropWorktreeRegistration(deps, plan.path).catch(() => false);
    throw error;
  }
  mark('worktree: added');
  await setUp(deps, config, { main, path: plan.path, branch, madeBranch: plan.start !== null });
  mark('worktree: set up');
  let opened: Opened;
  try {
    opened = await openInHerdr(terminal, main, plan.path, shown, repository.commonDir);
  } catch (error) {
    throw new DogsledError(
      `--branch ${branch}: ${messageOf(error)}; the worktree ${plan.path} stays, set up, and the next call reuses it`,
      { cause: error },
    );
  }
  const anchor = opened.anchor;
  if (anchor !== null) {
    await registry('worktrees.json', () => rememberWorktree(deps, { ...record, anchor_workspace: anchor }));
  }
  return { path: plan.path, branch, repository: main, created: true, ...opened };
}

/** The repository of `path`, which must have a main checkout (a bare repository has none). */
async function identify(path: string, git: GitIO): Promise<Repository> {
  let repository: RepositoryIdentity;
  try {
    repository = await repositoryAt(path, git);
  } catch (error) {
    throw new DogsledError(`--branch needs a Git repository: ${path} is not in one (${messageOf(error)})`, {
      cause: error,
    });
  }
  if (repository.main === null)
    throw new DogsledError(`--branch: ${path} is a bare repository; it has no checkout`);
  return { ...repository, main: repository.main };
}

/** The repository's setup commands in the new worktree; a failure removes what this call made. */
async function setUp(
  deps: BranchWorktreeIO,
  config: RepoConfig,
  made: { main: string; path: string; branch: string; madeBranch: boolean },
): Promise<void> {
  const setup = config.worktree.setup;
  if (setup.length === 0) return;
  try {
    await runRepoCommands(setup, {
      cwd: made.path,
      values: { main: made.main, path: made.path, branch: made.branch },
      deadlineMs: deps.deadline?.allowance('setup') ?? SETUP_CAP_MS,
      what: 'setup',
      env: deps.env,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  } catch (error) {
    const undone = await undo(deps, made);
    // The command comes from the repository's dogsled.toml: shown without its escapes.
    const [first = '', ...rest] = messageOf(error).split('\n');
    const line = plainLine(first);
    throw new DogsledError([`--branch ${made.branch}: ${line}; ${undone}`, ...rest].join('\n'), {
      cause: error,
    });
  }
}

/** Removes the new worktree, the branch if this call made it, and the registration. Says what it did. */
async function undo(
  deps: BranchWorktreeIO,
  made: { main: string; path: string; branch: string; madeBranch: boolean },
): Promise<string> {
  const left: string[] = [];
  try {
    await discardNewWorktree(made.main, made.path, { env: deps.env });
  } catch (error) {
    left.push(`the worktree stays (${messageOf(error)})`);
  }
  if (made.madeBranch && left.length === 0) {
    try {
      await deleteBranch(made.main, made.branch, { env: deps.env });
    } catch (error) {
      left.push(`branch ${made.branch} stays (${messageOf(error)})`);
    }
  }
  if (left.length === 0) await dropWorktreeRegistration(deps, made.path);
  if (left.length > 0) return left.join('; ');
  return made.madeBranch
    ? `removed the new worktree and branch ${made.branch}`
    : `removed the new worktree; branch ${made.branch} stays as it was`;
}

interface Opened {
  workspace: string;
  pane: string;
  anchor: string | null;
}

/**
 * `herdr worktree open --no-focus` from the main checkout. When no workspace showed the main checkout
 * before, Herdr opens one as the anchor; its id is recorded in the common directory.
 */
async function openInHerdr(
  terminal: TerminalPort,
  main: string,
  path: string,
  before: WorktreeList,
  commonDir: string,
): Promise<Opened> {
  const opened = await terminal.openWorktree({ cwd: main, path, focus: false });
  const workspace = opened.workspace.workspace_id;
  if (opened.already_open) {
    throw new DogsledError(
      `worktree ${path} was already open in Herdr workspace ${workspace}, which may belong to a running child`,
    );
  }
  let anchor: string | null = null;
  if (before.source.source_workspace_id === undefined) {
    const after = await terminal.listWorktrees({ cwd: main });
    const source = after.source.source_workspace_id;
    if (source !== undefined && source !== workspace) {
      anchor = source;
      await writeAnchor(commonDir, source);
    }
  }
  return { workspace, pane: opened.root_pane.pane_id, anchor };
}

async function shownIn(list: WorktreeList, path: string): Promise<string | null> {
  const wanted = await canonical(path);
  for (const worktree of list.worktrees) {
    if (worktree.open_workspace_id !== undefined && (await canonical(worktree.path)) === wanted) {
      return worktree.open_workspace_id;
    }
  }
  return null;
}

/** Why a new worktree cannot go at `path`: something is there, or git still has one registered there. */
async function pathTaken(path: string, worktrees: readonly GitWorktree[]): Promise<string | null> {
  const wanted = await canonical(path);
  for (const worktree of worktrees) {
    if ((await canonical(worktree.path)) === wanted) {
      const of = worktree.branch
        ? `branch ${worktree.branch.replace(/^refs\/heads\//, '')}`
        : 'a detached HEAD';
      return `git already has a worktree there (${of})`;
    }
  }
  try {
    const stats = await lstat(path);
    return stats.isDirectory() ? 'a directory is already there' : 'a file is already there';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ENOTDIR') return 'a file is in the way of its directory';
    return `cannot check it (${code ?? messageOf(error)})`;
  }
}

/** A registry that cannot be read or written (a directory in its place...) is one line, naming it. */
async function registry<T>(file: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isDogsledError(error)) throw error;
    throw new DogsledError(`cannot record the worktree in ${file}: ${messageOf(error)}`, { cause: error });
  }
}

function tipOf(refs: readonly GitRef[], name: string): string | null {
  return refs.find((ref) => ref.name === name)?.sha ?? null;
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}
