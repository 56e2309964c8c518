// The cleanup survey behind `dogsled doctor` and `dogsled prune`: every discovered repository's
// worktrees and branches under the loss rule, stale registrations, Herdr workspaces and panes under
// the pane rule, ended jobs, build-output targets, disk and hot processes, as one report plus the
// plan of entries whose removal loses nothing. Changes nothing (the per-repository fetch only
// refreshes remote-tracking refs).

import { basename, resolve } from 'node:path';
import type { PlanEntry } from '../core/cleanup/prune-plan.js';
import { type Target, targetVerdict } from '../core/cleanup/target-rule.js';
import { messageOf } from '../core/common/errors.js';
import { isExpiredJob } from '../core/jobs/job-expiry.js';
import type { JobRecord } from '../core/jobs/job-types.js';
import type { FetchOutcome } from '../git/refs.js';
import { statfsSpace } from '../probe/home-disk.js';
import { mapLimited } from '../probe/map-limited.js';
import { type ProcessTable, readProcessTable } from '../process/process-table.js';
import { loadRepoConfig } from '../state/config/repo-config.js';
import type { HostIO } from '../state/io.js';
import { type JobListing, listJobRecords } from '../state/records/job-records.js';
import { pathIsAbsent, readRegistries } from '../state/records/registries.js';
import { findTargets } from './build-targets.js';
import { DISK_FINDING_PERCENT, diskFindings } from './disk-findings.js';
import type { DoctorReport, JobEntry, TargetEntry, WorktreeEntry } from './doctor-report.js';
import { addPanes, type DoctorHerdr } from './panes/doctor-section.js';
import { hotProcesses } from './processes.js';
import { callerRepository, discoverRepositories, type RepositoryCandidate } from './repositories.js';
import { type HoldSource, type RepoSurvey, surveyRepository, type WorktreeSurvey } from './survey.js';

export interface CleanupIO extends HostIO {
  /** The caller's working directory: its repository is surveyed, and it holds its checkout. */
  callerCwd: string;
  /** Holds from the terminal layer (panes, processes, launches, items); none without it. */
  holds?: HoldSource;
  /** Root pids of Herdr panes, so hot processes inside panes are not reported. */
  paneRootPids?: readonly number[];
  /** Directories of live panes and Herdr workspaces: their repositories join the survey. */
  discoveredPaths?: readonly string[];
  /** Checkouts a Herdr workspace shows: their build output is kept. */
  workspaceCheckouts?: readonly string[];
  /** Herdr, for the workspaces and panes sections (both null without it). */
  herdr?: DoctorHerdr;
  /** Warnings from reading the terminal side (Herdr could not be read…), joined to the report's. */
  terminalWarnings?: readonly string[];
  /** Told what the survey is doing, for a progress line on a terminal ('' when done). */
  progress?: (text: string) => void;
  /**
   * False for the sweep: the service is no caller, so the repository of its directory is not
   * surveyed for that alone (its checkout is still held). Default true.
   */
  surveyCaller?: boolean;
}

/** Repositories surveyed at once: their fetches overlap, and each reads its checkouts four at a time. */
const REPOSITORY_CONCURRENCY = 2;

export interface CleanupSurvey {
  report: DoctorReport;
  /** Every removable entry, in no particular order (prune selects and orders). */
  plan: PlanEntry[];
  /** Each surveyed repository, by main checkout: prune's rechecks reuse their fetch outcome. */
  repositories: Map<string, RepoSurvey>;
  fetches: Map<string, FetchOutcome | null>;
  targets: Target[];
}

export interface CleanupOptions {
  /** Sample CPU for the report-only processes section, beside the survey (prune does not need it). */
  processes: boolean;
  host: string;
  /**
   * False when the pass removes no worktrees (prune without its worktrees category): then no
   * workspace closes with a worktree, and the pane rule judges it on its own. Default true.
   */
  removesWorktrees?: boolean;
}

export async function surveyCleanup(io: CleanupIO, options: CleanupOptions): Promise<CleanupSurvey> {
  const now = io.now();
  const warnings: string[] = [...(io.terminalWarnings ?? [])];
  // Each survey is a chain of git processes (fetch, refs, graph, diffs) that starts with the
  // repository's identity: the caller's is asked first, beside the registries' read, and the
  // process table (synchronous slices of /proc reads, and the CPU sample's first reading) is read
  // once every survey has started its fetch, so it never holds up an answer the chain waits for.
  const callerRead = io.surveyCaller === false ? null : callerRepository(io.callerCwd, io);
  const registries = await readRegistries(io);
  let startTable = (): void => {};
  const tablePromise = new Promise<void>((resolve) => {
    startTable = resolve;
  }).then(() => readProcessTable());
  // The CPU sample runs beside the survey and ends with it (but lasts at least its shortest
  // window, processes.ts). A survey that throws leaves it unawaited, keeping nothing alive.
  let surveyed = (): void => {};
  const surveying = new Promise<void>((resolve) => {
    surveyed = resolve;
  });
  const hotPromise = options.processes
    ? tablePromise.then((table) =>
        hotProcesses({
          table,
          paneRootPids: io.paneRootPids ?? [],
          ownPid: process.pid,
          until: surveying,
        }),
      )
    : Promise.resolve({ processes: [] });

  const candidates: RepositoryCandidate[] = [
    ...io.config.cleanup.repository_paths.map((path) => ({ path, source: 'config' as const })),
    ...registries.repositories.map((record) => ({ path: record.path, source: 'remembered' as const })),
    ...registries.worktrees.map((record) => ({ path: record.repository, source: 'worktree' as const })),
    ...(io.discoveredPaths ?? []).map((path) => ({ path, source: 'discovered' as const })),
  ];
  const caller = await callerRead;
  const discovered = await discoverRepositories(candidates, caller, io);
  const report: DoctorReport = {
    version: 1,
    host: options.host,
    now_ms: now,
    repositories: discovered.map((found) => found.entry),
    worktrees: [],
    branches: [],
    workspaces: null,
    panes: null,
    landed_dirty: [],
    unlinked: [],
    jobs: [],
    targets: [],
    disk: null,
    processes: { hot: [], error: null },
    warnings,
  };
  const plan: PlanEntry[] = [];
  const surveys = new Map<string, RepoSurvey>();
  const fetches = new Map<string, FetchOutcome | null>();

  // Repositories are surveyed a few at a time (each fetch waits on its remote), and their entries
  // join the report in discovery order. Each survey spawns its fetch before its first await.
  const surveysRun = mapLimited(discovered, REPOSITORY_CONCURRENCY, async ({ identity }) => {
    if (identity?.main == null) return null;
    io.progress?.(`surveying ${identity.main}`);
    try {
      return await surveyRepository(identity.main, {
        fetch: 'run',
        // The report and plan only: each removal's recheck asks Git (prune.ts).
        trustStat: true,
        callerCwd: io.callerCwd,
        registered: registries.worktrees,
        holds: io.holds,
        processTable: tablePromise,
        identity,
        env: io.env,
        signal: io.signal,
      });
    } catch (error) {
      return { error: messageOf(error) };
    }
  });
  startTable();
  // What the rest of the pass reads apart from the surveys is asked now, and taken in order below.
  const jobsRead = listJobRecords(io.paths);
  const spaceRead = statfsSpace(io.home);
  jobsRead.catch(() => {});
  spaceRead.catch(() => {});
  const results = await surveysRun;
  // The CPU sample's window ends with the repositories' surveys (its last reading then overlaps
  // the reads of jobs, targets and disk, which wait on the thread pool).
  surveyed();
  discovered.forEach(({ entry }, index) => {
    if (entry.removable) plan.push({ kind: 'repository-record', path: entry.path, reason: entry.reason });
    const survey = results[index];
    if (survey == null) return;
    if ('error' in survey) {
      entry.warnings.push(`cannot survey: ${survey.error}`);
      warnings.push(`${entry.path}: cannot survey: ${survey.error}`);
      return;
    }
    surveys.set(survey.repository, survey);
    fetches.set(survey.repository, survey.fetch);
    entry.default_branch = survey.defaultBranch.name;
    entry.warnings.push(...survey.warnings);
    warnings.push(...survey.warnings.map((line) => `${survey.repository}: ${line}`));
    addRepository(survey, report, plan);
  });
  io.progress?.('');
  await addOrphanRecords(registries.worktrees, report, plan);

  const jobs = addJobs(await jobsRead, now, report, plan);
  if (io.herdr)
    await addPanes(
      io,
      io.herdr,
      { jobs, now, removesWorktrees: options.removesWorktrees ?? true },
      report,
      plan,
    );
  const table = await tablePromise;
  const targets = await addTargets(surveys, table, io.workspaceCheckouts ?? [], report, plan);
  report.disk = await disk(io, spaceRead, surveys, targets).catch((error) => {
    warnings.push(`disk: ${messageOf(error)}`);
    return null;
  });
  const hot = await hotPromise;
  report.processes = { hot: hot.processes, error: 'error' in hot ? (hot.error ?? null) : null };
  if (!table.ok) warnings.push(table.error);
  return { report, plan, repositories: surveys, fetches, targets };
}

function worktreeEntry(survey: WorktreeSurvey): WorktreeEntry {
  const { facts, verdict } = survey;
  const removable = verdict.kind === 'removable' || (verdict.kind === 'stale' && verdict.removable);
  const proof = verdict.kind === 'removable' ? verdict.proof : null;
  return {
    repository: facts.repository,
    path: facts.path,
    branch: facts.branch,
    head: facts.head,
    state: verdict.kind,
    removable,
    reason: verdict.reason,
    holds: verdict.kind === 'kept' ? verdict.holds : verdict.kind === 'unlinked' ? [verdict.hold] : [],
    proof: proof && {
      checkout: proof.checkout,
      restore: proof.restore,
      ignored: proof.ignored,
      commits: proof.commits,
      unlock: proof.unlock,
      delete_branch: proof.deleteBranch,
    },
    registered: facts.registered,
    locked: facts.locked,
  };
}

function addRepository(survey: RepoSurvey, report: DoctorReport, plan: PlanEntry[]): void {
  for (const worktree of survey.worktrees) {
    const entry = worktreeEntry(worktree);
    report.worktrees.push(entry);
    const { facts, verdict } = worktree;
    if (verdict.kind === 'landed_dirty') report.landed_dirty.push(verdict.finding);
    if (verdict.kind === 'unlinked') {
      report.unlinked.push({ repository: facts.repository, path: facts.path, reason: verdict.reason });
    }
    if (verdict.kind === 'removable' && facts.head !== null) {
      plan.push({
        kind: 'worktree',
        repository: facts.repository,
        common_dir: survey.commonDir,
        path: facts.path,
        branch: facts.branch,
        head: facts.head,
        reason: verdict.reason,
      });
    }
    if (verdict.kind === 'stale' && verdict.removable) {
      plan.push({
        kind: 'worktree-record',
        repository: facts.repository,
        path: facts.path,
        reason: verdict.reason,
      });
    }
  }
  // A branch proven through a containing ref goes before that ref, which may itself be removed.
  const branches = [...survey.branches].sort(
    (a, b) => Number(proofKind(b) === 'contained') - Number(proofKind(a) === 'contained'),
  );
  for (const { facts, verdict } of branches) {
    report.branches.push({
      repository: facts.repository,
      branch: facts.name,
      head: facts.sha,
      removable: verdict.removable,
      reason: verdict.reason,
      proof: verdict.removable ? verdict.proof : null,
      worktree: facts.worktree,
    });
    if (verdict.removable) {
      plan.push({
        kind: 'branch',
        repository: facts.repository,
        common_dir: survey.commonDir,
        branch: facts.name,
        head: facts.sha,
        reason: verdict.reason,
      });
    }
  }
}

function proofKind(branch: RepoSurvey['branches'][number]): string | null {
  return branch.verdict.removable ? branch.verdict.proof.kind : null;
}

/**
 * Worktree records of repositories that could not be surveyed: an absent path is a stale record
 * (its absence is judged again under the registry lock when prune drops it); a present one stays.
 */
async function addOrphanRecords(
  records: readonly { path: string; repository: string; branch: string }[],
  report: DoctorReport,
  plan: PlanEntry[],
): Promise<void> {
  const seen = new Set(report.worktrees.map((entry) => resolve(entry.path)));
  for (const record of records) {
    if (seen.has(resolve(record.path))) continue;
    const absent = await pathIsAbsent(record.path).catch(() => false);
    const reason = absent
      ? 'stale registration: the path is gone (only the record is removed)'
      : `its repository ${record.repository} could not be surveyed`;
    report.worktrees.push({
      repository: record.repository,
      path: record.path,
      branch: record.branch || null,
      head: null,
      state: absent ? 'stale' : 'kept',
      removable: absent,
      reason,
      holds: [],
      proof: null,
      registered: true,
      locked: null,
    });
    if (absent)
      plan.push({ kind: 'worktree-record', repository: record.repository, path: record.path, reason });
  }
}

function addJobs(listing: JobListing, now: number, report: DoctorReport, plan: PlanEntry[]): JobRecord[] {
  for (const problem of listing.problems)
    report.warnings.push(`job record ${problem.path}: ${problem.reason}`);
  for (const record of listing.records) {
    const expired = isExpiredJob(record, now);
    const entry: JobEntry = {
      id: record.id,
      program: basename(record.command[0] ?? ''),
      ended_ms: record.ended_ms,
      removable: expired,
      reason: expired
        ? 'ended more than 24 hours ago'
        : record.ended_ms === null
          ? 'has not ended'
          : 'ended recently',
    };
    report.jobs.push(entry);
    if (expired) plan.push({ kind: 'job', id: record.id, path: record.id, reason: entry.reason });
  }
  return listing.records;
}

async function addTargets(
  surveys: ReadonlyMap<string, RepoSurvey>,
  table: ProcessTable,
  workspaceCheckouts: readonly string[],
  report: DoctorReport,
  plan: PlanEntry[],
): Promise<Target[]> {
  const checkouts = [...surveys.values()].flatMap((survey) => [
    { path: survey.repository, kind: 'main' as const },
    ...survey.worktrees
      .filter((worktree) => worktree.facts.listed && worktree.facts.exists)
      .map((worktree) => ({ path: worktree.facts.path, kind: 'linked' as const })),
  ]);
  const removed = plan.flatMap((entry) => (entry.kind === 'worktree' ? [entry.path] : []));
  const busyPaths = table.ok ? table.processes.flatMap((proc) => (proc.cwd ? [proc.cwd] : [])) : [];
  const found = await findTargets(checkouts);
  const listed: Target[] = [];
  for (const target of found) {
    const verdict = table.ok
      ? targetVerdict(target, {
          checkouts: checkouts.map((checkout) => checkout.path),
          workspaceCheckouts,
          busyPaths,
          removedCheckouts: removed,
        })
      : { kind: 'keep' as const, reason: 'the process table cannot be read' };
    if (verdict.kind === 'omitted') continue;
    listed.push(target);
    const entry: TargetEntry = {
      path: target.path,
      checkout: target.checkout,
      bytes: target.bytes,
      partial: target.partial,
      removable: verdict.kind === 'removable',
      reason: verdict.kind === 'removable' ? 'build output nothing works in' : verdict.reason,
    };
    report.targets.push(entry);
    if (entry.removable) {
      plan.push({
        kind: 'target',
        path: target.path,
        checkout: target.checkout,
        bytes: target.bytes,
        reason: entry.reason,
      });
    }
  }
  return listed;
}

/** `spaceRead`: the statfs of the home's file system, asked beside the surveys. */
async function disk(
  io: CleanupIO,
  spaceRead: ReturnType<typeof statfsSpace>,
  surveys: ReadonlyMap<string, RepoSurvey>,
  targets: readonly Target[],
) {
  const space = await spaceRead;
  const usedPercent =
    space.total_bytes > 0 ? (100 * (space.total_bytes - space.free_bytes)) / space.total_bytes : 0;
  if (!(usedPercent > DISK_FINDING_PERCENT)) return null;
  const worktreeDirs: string[] = [];
  for (const repository of surveys.keys()) {
    const config = await loadRepoConfig(repository).catch(() => null);
    if (config) worktreeDirs.push(config.worktree.dir_path);
  }
  return diskFindings({
    usedPercent: Math.round(usedPercent * 10) / 10,
    candidates: [io.paths.jobs, ...worktreeDirs, ...targets.map((target) => target.path)],
  });
}
