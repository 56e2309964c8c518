// One repository's cleanup survey: its worktrees (linked, on a branch or detached, plus dogsled's
// registrations that Git no longer lists) and its local branches, each with the facts the loss rule
// needs and the rule's verdict. Reads only; the fetch (when asked for) is the one network step.
// The same survey, narrowed to one entry, is prune's recheck right before a removal.

import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type BranchFacts,
  type BranchVerdict,
  branchVerdict,
  checkoutContent,
  type WorktreeFacts,
  type WorktreeVerdict,
  worktreeVerdict,
} from '../core/cleanup/loss-rule.js';
import type { CommitsVerdict, Hold } from '../core/cleanup/loss-types.js';
import type { WorktreeRecord } from '../core/cleanup/registry-types.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { type GitDirs, gitDirsOfSync, pathPresent } from '../git/git-dir.js';
import {
  branchHeldByOperation,
  checkoutIdentity,
  operationInProgress,
  provenCleanStatus,
  readStatus,
  type StatusRead,
} from '../git/git-status.js';
import { worktreeConfigPossible } from '../git/linked-identity.js';
import { branchName } from '../git/mutate.js';
import {
  type DefaultBranch,
  defaultBranchOf,
  type FetchOutcome,
  fetchAll,
  type GitRef,
  readRefs,
} from '../git/refs.js';
import { type RepositoryIdentity, repositoryAt } from '../git/repository.js';
import type { GitIO } from '../git/run-git.js';
import { type StatProof, statClean } from '../git/stat-clean.js';
import type { GitWorktree } from '../git/worktrees.js';
import { mapLimited } from '../probe/map-limited.js';
import type { ProcessTable } from '../process/process-table.js';
import { loadRepoConfig } from '../state/config/repo-config.js';
import { gatherCommitFacts, readTargetWindow } from './commit-facts.js';

/**
 * Holds that other layers know about (panes, processes, launches, items), by checkout path.
 * `table`: the process table this pass already read (a survey reads it once for every repository
 * and its targets); without it, as in every recheck before a removal, the table is read afresh.
 */
export type HoldSource = (
  paths: readonly string[],
  table?: Promise<ProcessTable>,
) => Promise<ReadonlyMap<string, readonly Hold[]>>;

/** `env` and `signal` (GitIO) are every git call's environment and deadline. */
export interface SurveyOptions extends GitIO {
  /** `run`: fetch first (a cleanup pass). An outcome: an earlier fetch of this pass. `skip`: none. */
  fetch: 'run' | 'skip' | FetchOutcome;
  /** The caller's working directory: it holds the checkout it is in. */
  callerCwd: string | null;
  /** dogsled's worktree registrations (all of them; this repository's are picked out). */
  registered: readonly WorktreeRecord[];
  holds?: HoldSource;
  /** The process table this pass read, for the holds (absent: they read it themselves). */
  processTable?: Promise<ProcessTable>;
  /** Narrow the survey to one worktree path or one branch (prune's recheck). */
  only?: { worktree?: string; branch?: string };
  /** The repository as just identified (doctor's discovery), so it is not read twice. */
  identity?: RepositoryIdentity;
  /**
   * False when only the commits matter (an agent pane's landed mark): checkouts are not read, so no
   * worktree can be removable. Default true.
   */
  content?: boolean;
  /**
   * A checkout whose files prove it clean (stat-clean.ts: git status's own stat and cache-tree
   * shortcuts) is taken as clean without a `git status`: for a survey's report and plan, never for
   * the recheck right before a removal, which asks Git. Default false.
   */
  trustStat?: boolean;
}

export interface WorktreeSurvey {
  facts: WorktreeFacts;
  verdict: WorktreeVerdict;
}

export interface BranchSurvey {
  facts: BranchFacts;
  verdict: BranchVerdict;
}

export interface RepoSurvey {
  /** The main checkout. */
  repository: string;
  commonDir: string;
  defaultBranch: DefaultBranch;
  /** The fetch this survey ran or was given; null when remote refs were not refreshed. */
  fetch: FetchOutcome | null;
  warnings: string[];
  /** Every worktree Git lists now (main included), whatever the survey was narrowed to. */
  listed: Array<{ path: string; branch: string | null }>;
  worktrees: WorktreeSurvey[];
  branches: BranchSurvey[];
}

/** Status reads in parallel: enough to overlap git's I/O on a 2-core box. */
const STATUS_CONCURRENCY = 4;

export async function surveyRepository(path: string, options: SurveyOptions): Promise<RepoSurvey> {
  const git: GitIO = { env: options.env, signal: options.signal };
  const repo = options.identity ?? (await repositoryAt(path, git));
  if (repo.main === null) throw new DogsledError(`${path}: a bare repository has no checkouts to survey`);
  const main = repo.main;
  const warnings: string[] = [];
  // The fetch refreshes remote-tracking refs and nothing a checkout holds: the checkouts are read
  // while it runs, and the refs once it is done.
  const fetching: Promise<FetchOutcome | null> =
    options.fetch === 'run'
      ? fetchAll(main, git)
      : Promise.resolve(options.fetch === 'skip' ? null : options.fetch);
  // The refs are read as soon as the fetch is done, while the checkouts are still being read (each
  // read gives the event loop a turn): for-each-ref runs beside them on another core.
  const refsRead = fetching.then(() => readRefs(main, git));
  // The default branch's window needs only the refs: a whole survey reads it beside the checkouts
  // too (a recheck, narrowed to one entry, reads it only if its entry needs it).
  const windowRead =
    options.only === undefined
      ? refsRead.then((refs) => readTargetWindow(main, defaultBranchOf(refs), git))
      : undefined;
  let turns = Promise.resolve();
  const nextTurn = (): Promise<void> => {
    turns = turns.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    return turns;
  };
  // Awaited below; this only keeps a rejection from going unhandled when something else throws first.
  refsRead.catch(() => {});
  windowRead?.catch(() => {});

  const only = options.only;
  const linked = repo.worktrees.filter((worktree) => !worktree.main);
  const mainReal = realOrSame(main);
  const records = recordsOf(options.registered, mainReal, linked);
  const wanted = (candidate: string): boolean =>
    only?.worktree === undefined || samePath(candidate, only.worktree);
  const worktreePaths = new Set<string>();
  const rows: Array<{
    path: string;
    git: GitWorktree | null;
    registered: boolean;
    /** The branch dogsled recorded, for a registration Git no longer lists. */
    recordedBranch?: string;
  }> = [];
  if (only?.branch === undefined) {
    for (const git of linked) {
      if (!wanted(git.path)) continue;
      worktreePaths.add(resolve(git.path));
      rows.push({ path: git.path, git, registered: records.has(resolve(git.path)) });
    }
    for (const [record, { branch }] of records) {
      if (worktreePaths.has(record) || !wanted(record)) continue;
      rows.push({ path: record, git: null, registered: true, recordedBranch: branch });
    }
  }

  const factsInput = (refs: GitRef[], fetch: FetchOutcome | null) => ({
    cwd: main,
    objectDir: repo.objectDir,
    refs,
    defaultBranch: defaultBranchOf(refs),
    fetchOk: fetch?.ok === true,
    ...git,
  });
  // The commits' verdicts need only the refs and the heads: a whole survey judges the heads Git
  // listed beside its checkout reads. A verdict is the tip's own (whatever else is judged with it),
  // so they serve unless a checkout read found a head Git did not list (then they are judged again).
  const earlyFacts =
    options.only === undefined
      ? Promise.all([fetching, refsRead]).then(([fetch, refs]) => {
          const tips = tipsOf(
            rows.map((row) => row.git?.head ?? null),
            branchRefsOf(refs),
            defaultBranchOf(refs).name,
          );
          const facts = gatherCommitFacts({ ...factsInput(refs, fetch), tips, window: windowRead });
          facts.catch(() => {});
          return { tips: new Set(tips), facts };
        })
      : undefined;
  earlyFacts?.catch(() => {});

  // A linked worktree's identity comes from its files unless config could move its work tree.
  const linkedOf = (await worktreeConfigPossible(repo.commonDir)) ? undefined : repo.commonDir;
  const [configProblem, reads, holdMap, callerReal, heldByOperation] = await Promise.all([
    // Every worktree removal runs the repository's teardown: a dogsled.toml that does not load stops them all.
    loadRepoConfig(main).then(
      () => null,
      (error: unknown) => messageOf(error),
    ),
    mapLimited(rows, STATUS_CONCURRENCY, async (row) => {
      // A read its files prove makes no asynchronous call: one read per turn of the event loop lets
      // a git process that ended meanwhile (the fetch) be heard, and the next one (the refs, then
      // the commits' verdicts) start beside the reads, not after all of them.
      await nextTurn();
      return readWorktree(
        row,
        { content: options.content ?? true, trustStat: options.trustStat ?? false },
        git,
        linkedOf,
      );
    }),
    options.holds
      ? options.holds(
          rows.map((row) => row.path),
          options.processTable,
        )
      : Promise.resolve(new Map<string, readonly Hold[]>()),
    options.callerCwd ? realOrSame(options.callerCwd) : null,
    operationHolds(repo.worktrees),
  ]);

  const fetch = await fetching;
  if (fetch && !fetch.ok) warnings.push(`fetch failed: ${fetch.error}; only the default branch counts`);
  if (configProblem !== null) warnings.push(`${configProblem}; no worktree is removed until it is fixed`);
  const refs = await refsRead;
  // A stat-proven checkout is clean only if the index's tree is its branch tip's; else Git is asked.
  await mapLimited(reads, STATUS_CONCURRENCY, async (read, index) => {
    if (read.proven) reads[index] = await settleProof(read, read.proven, rows[index]?.git ?? null, refs, git);
  });
  const defaultBranch = defaultBranchOf(refs);
  if (defaultBranch.target === null) {
    warnings.push(`no default branch (${defaultBranch.name} does not exist): nothing counts as integrated`);
  }

  const branchRows = branchRefsOf(refs).filter(
    (ref) => only === undefined || only.branch === branchName(ref.name),
  );
  const tips = tipsOf(
    reads.map((read) => read.head),
    branchRows,
    defaultBranch.name,
  );
  let verdicts = new Map<string, CommitsVerdict>();
  try {
    const early = await earlyFacts;
    const commitFacts =
      early !== undefined && tips.every((tip) => early.tips.has(tip))
        ? await early.facts
        : await gatherCommitFacts({ ...factsInput(refs, fetch), tips, window: windowRead });
    verdicts = commitFacts.verdicts;
    warnings.push(...commitFacts.warnings);
  } catch (error) {
    warnings.push(`cannot read the commit graph: ${messageOf(error)}`);
  }

  const worktrees = rows.map((row, index): WorktreeSurvey => {
    const read = reads[index] as WorktreeRead;
    const holds = [...(holdMap.get(row.path) ?? [])];
    if (callerReal !== null && read.real !== null && isInside(callerReal, read.real)) {
      holds.push({ kind: 'caller', reason: 'the caller works in this checkout' });
    }
    const facts: WorktreeFacts = {
      repository: main,
      path: row.path,
      branch: row.git ? (row.git.branch ? branchName(row.git.branch) : null) : row.recordedBranch || null,
      head: read.head,
      listed: row.git !== null,
      prunable: row.git?.prunable ?? null,
      locked: row.git?.locked ?? null,
      exists: read.exists,
      gitFile: read.gitFile,
      registered: row.registered,
      defaultBranch: defaultBranch.name,
      content: read.content,
      operation: read.operation,
      commits: read.head ? (verdicts.get(read.head) ?? null) : null,
      holds,
      configProblem,
    };
    return { facts, verdict: worktreeVerdict(facts) };
  });

  const branches = branchRows.map((ref): BranchSurvey => {
    const name = branchName(ref.name);
    const commits: CommitsVerdict = verdicts.get(ref.sha) ?? {
      landed: false,
      unique: 0,
      reason: 'its commits could not be checked',
    };
    const held = ref.worktree === null ? heldByOperation.get(ref.name) : undefined;
    const worktree = ref.worktree ?? held?.path ?? null;
    const facts: BranchFacts = {
      repository: main,
      name,
      sha: ref.sha,
      worktree,
      inMain: worktree !== null && samePath(worktree, main),
      operation: held?.operation ?? null,
      isDefault: name === defaultBranch.name,
      commits,
    };
    return { facts, verdict: branchVerdict(facts) };
  });

  const listed = repo.worktrees.map((worktree) => ({
    path: worktree.path,
    branch: worktree.branch ? branchName(worktree.branch) : null,
  }));
  return {
    repository: main,
    commonDir: repo.commonDir,
    defaultBranch,
    fetch,
    warnings,
    listed,
    worktrees,
    branches,
  };
}

/** The local branches (no symbolic ref). */
function branchRefsOf(refs: readonly GitRef[]): GitRef[] {
  return refs.filter((ref) => ref.name.startsWith('refs/heads/') && ref.symref === null);
}

/** The commits the loss rule judges: the checkouts' heads and every branch but the default one. */
function tipsOf(
  heads: ReadonlyArray<string | null>,
  branches: readonly GitRef[],
  defaultName: string,
): string[] {
  return [
    ...heads.flatMap((head) => (head ? [head] : [])),
    ...branches.filter((ref) => branchName(ref.name) !== defaultName).map((ref) => ref.sha),
  ];
}

/** A rebase or bisect detaches HEAD but still holds its branch: Git refuses to delete it. */
async function operationHolds(
  worktrees: readonly GitWorktree[],
): Promise<Map<string, { path: string; operation: string }>> {
  const held = new Map<string, { path: string; operation: string }>();
  for (const worktree of worktrees) {
    if (worktree.bare || !worktree.detached) continue;
    const found = await branchHeldByOperation(worktree.path);
    if (found) held.set(found.ref, { path: worktree.path, operation: found.operation });
  }
  return held;
}

interface WorktreeRead {
  exists: boolean;
  gitFile: boolean;
  real: string | null;
  head: string | null;
  content: WorktreeFacts['content'];
  operation: string | null;
  /** Its files prove it clean if its branch's tip has this tree: settled once the refs are read. */
  proven?: { proof: StatProof; path: string; dirs: GitDirs };
}

/**
 * `linkedOf`: the repository's common dir, when a listed worktree's files may prove its identity.
 * The file reads are synchronous (each cheaper than a thread-pool round trip), and the checkout's
 * `.git` and git dirs are read once: a worktree its files prove costs no asynchronous call at all.
 */
async function readWorktree(
  row: { path: string; git: GitWorktree | null },
  { content, trustStat }: { content: boolean; trustStat: boolean },
  git: GitIO,
  linkedOf: string | undefined,
): Promise<WorktreeRead> {
  const exists = pathPresent(row.path);
  const gitFile = exists && pathPresent(join(row.path, '.git'));
  const listedHead = row.git?.head ?? null;
  if (!content || !exists || !gitFile || row.git === null || row.git.prunable !== null) {
    return {
      exists,
      gitFile,
      real: exists ? realOrSame(row.path) : null,
      head: listedHead,
      content: null,
      operation: null,
    };
  }
  const identity = await checkoutIdentity(row.path, git, linkedOf);
  const real = identity.real ?? realOrSame(row.path);
  // Only where no config can move the work tree (linkedOf): its files are then the checkout's.
  const proven =
    trustStat && identity.ok && linkedOf !== undefined ? provenClean(row.path, identity.dirs) : null;
  if (proven !== null) {
    return {
      exists,
      gitFile,
      real,
      head: listedHead,
      content: null,
      operation: operationInProgress(row.path, proven.dirs),
      proven: { proof: proven.proof, path: row.path, dirs: proven.dirs },
    };
  }
  const status = identity.ok ? await readStatus(row.path, git) : { ok: false as const, reason: 'not read' };
  const head = status.ok ? (status.status.head ?? listedHead) : listedHead;
  return {
    exists,
    gitFile,
    real,
    head,
    content: checkoutContent(identity, status),
    operation: identity.ok ? operationInProgress(row.path, identity.dirs) : null,
  };
}

/** `dirs`: the checkout's git dirs when its identity proof read them; else they are read here. */
function provenClean(path: string, dirs: GitDirs | undefined): { proof: StatProof; dirs: GitDirs } | null {
  try {
    const found = dirs ?? gitDirsOfSync(path);
    const proof = statClean(path, found.gitDir);
    return proof && { proof, dirs: found };
  } catch {
    return null;
  }
}

/**
 * A stat-proven read made whole: clean at its branch's tip when the refs show that tip with the
 * index's tree (its identity was checked before the proof, so `checkoutContent` gets `ok`); otherwise,
 * or when anything moved, the status Git gives now.
 */
async function settleProof(
  read: WorktreeRead,
  { proof, path, dirs }: { proof: StatProof; path: string; dirs: GitDirs },
  listed: GitWorktree | null,
  refs: readonly GitRef[],
  git: GitIO,
): Promise<WorktreeRead> {
  const tip = refs.find((ref) => ref.name === proof.ref && ref.symref === null);
  const status: StatusRead =
    tip !== undefined && tip.tree === proof.tree
      ? provenCleanStatus(path, tip.sha, branchName(tip.name), dirs)
      : await readStatus(path, git);
  const listedHead = listed?.head ?? null;
  return {
    exists: read.exists,
    gitFile: read.gitFile,
    real: read.real,
    operation: read.operation,
    head: status.ok ? (status.status.head ?? listedHead) : listedHead,
    content: checkoutContent({ ok: true }, status),
  };
}

/** This repository's registrations, keyed by resolved path: by their repository or by Git's list. */
function recordsOf(
  registered: readonly WorktreeRecord[],
  mainReal: string,
  linked: readonly GitWorktree[],
): Map<string, WorktreeRecord> {
  const listed = new Set(linked.map((worktree) => resolve(worktree.path)));
  const mine = new Map<string, WorktreeRecord>();
  for (const record of registered) {
    const path = resolve(record.path);
    if (listed.has(path) || realOrSame(record.repository) === mainReal) mine.set(path, record);
  }
  return mine;
}

/** The real path (one realpath call, as fs.promises.realpath makes), or the path resolved. */
function realOrSame(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

function samePath(a: string, b: string): boolean {
  return resolve(a) === resolve(b);
}

/** `path` is `dir` or below it. */
export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}
