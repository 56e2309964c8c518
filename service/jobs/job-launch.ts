// Launching one placed job, for `run` and for the service's admission worker alike: write the created
// record, the owner's item and the caller's environment (jobs/ID.env) first, then open the pane that
// runs `dogsled exec ID` (a new Herdr tab placed by the tab rules, or a detached process group
// headless), then record where it runs. A pane that cannot be opened ends the record `launch failed:
// <why>`, closes the item, removes the environment and ends the reservation, so nothing is left
// looking alive or holding room. Headless, a caller that will wait for the job hands it to the
// supervisor the service keeps warm (warm-claim.ts) or, with no service, starts its supervisor ahead
// (standbySupervisor), so that Node's start-up runs while the job is placed. Either is handed the job
// only once the files are written, exactly where a launch would start it.

import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Item } from '../core/agents/item-types.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { STANDBY_ENV } from '../core/jobs/job-env.js';
import type { JobRecord } from '../core/jobs/job-types.js';
import type { TabPlacement } from '../core/jobs/tab-placement.js';
import type { JobRequest } from '../core/placement/queue-types.js';
import { squeezedLine } from '../core/text/clean.js';
import { launchStandby, type Standby } from '../process/launch-detached.js';
import { execArgv, SUPERVISOR_ENV, selfInvocation } from '../process/self-invocation.js';
import type { ProcessIO } from '../state/io.js';
import { writeJobEnvFile } from '../state/records/job-env-write.js';
import { createJobRecord, jobEnvPath, updateJobRecord } from '../state/records/job-records.js';
import { appendItem, updateItems } from '../state/records/queue-items.js';
import { outsideAnyPane } from '../terminal/herdr/herdr-env.js';
import { openTerminal } from '../terminal/open.js';
import type { LaunchedCommand, RunCommandOptions, TerminalPort } from '../terminal/port.js';
import { TerminalError } from '../terminal/terminal-errors.js';
import type { Deadline } from '../time/deadline.js';
import { placeJobTab } from './tab-placement-facts.js';
import { claimWarm } from './warm-claim.js';

export interface JobLaunchIO extends ProcessIO {
  /** Opens the terminal port; default `openTerminal({env, home, warn})`. Called once per launch. */
  terminal?: () => Promise<TerminalPort>;
  /** The argv prefix that runs dogsled (`[node, dist/dogsled.cjs]`); default: this process's own. */
  self?: readonly string[];
  /** Called once the record, item and environment are written, before the pane opens (tests pause here). */
  afterRecord?: () => Promise<void>;
  /** A headless supervisor started ahead for this job (standbySupervisor); used instead of a spawn. */
  standby?: JobStandby | undefined;
  /** Headless, hand the job to the supervisor `serve` keeps warm first (warm-claim.ts). */
  warm?: boolean;
}

/** A supervisor waiting for one job, started in that job's directory. */
export interface JobStandby extends Standby {
  jobId: string;
  cwd: string;
}

export interface LaunchSpec {
  jobId: string;
  itemId: string;
  request: JobRequest;
  owner: string | null;
  host: string;
  ticket: string | null;
  /** The reservation the placement took; it ends with the job. */
  reservation: string | null;
  /** The caller's environment for the job (core/job-env.ts); null runs it with the wrapper's. */
  env: Record<string, string> | null;
}

export interface Launched {
  job: JobRecord;
  item: Item;
  /** Where Herdr put the tab (undefined headless). */
  placement?: TabPlacement;
}

/** The operation name a `--max` overrun reports. */
export const OPEN_PANE_OPERATION = 'opening the job pane';

export async function launchJob(ctx: JobLaunchIO, spec: LaunchSpec, deadline: Deadline): Promise<Launched> {
  const { request } = spec;
  const created = ctx.now();
  const job: JobRecord = {
    version: 1,
    id: spec.jobId,
    command: request.command,
    cwd: request.cwd,
    host: spec.host,
    owner: spec.owner,
    pane: null,
    created_ms: created,
    started_ms: null,
    ended_ms: null,
    exit_code: null,
    signal: null,
    reason: null,
    terminal_id: null,
    workspace: null,
    tab: null,
    timeout_ms: request.timeout_ms,
    idle_timeout_ms: request.idle_timeout_ms,
    ticket: spec.ticket,
    item: spec.itemId,
    reservation: spec.reservation,
  };
  const item: Item = {
    id: spec.itemId,
    kind: 'job',
    host: spec.host,
    pane: null,
    terminal_id: null,
    owner: spec.owner,
    created_ms: created,
    closed_ms: null,
    close_reason: null,
    job: spec.jobId,
    ticket: spec.ticket,
    command: request.command,
  };
  await createJobRecord(ctx, job);
  let opened: Opened;
  try {
    // Each finished before a failure is undone, so `failed` never races a write still on its way.
    // The item is synced; the environment is not (writeJobEnvFile says why), so they cost one disk
    // wait, not two. The directory is checked here, not left to the spawn: a missing one would be
    // reported as the node binary's ENOENT headless, and under Herdr as an empty tab in some other
    // directory.
    const written = await Promise.allSettled([
      appendItem(ctx, item),
      checkDirectory(request.cwd),
      spec.env === null ? undefined : writeJobEnv(ctx, spec.jobId, spec.env),
    ]);
    const refused = written.find((outcome) => outcome.status === 'rejected');
    if (refused !== undefined) throw refused.reason;
    await ctx.afterRecord?.();
    opened = await deadline.step(OPEN_PANE_OPERATION, 'routine', (signal) => openPane(ctx, spec, signal));
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return failed(ctx, spec, error);
  }
  const { launched, placement } = opened;
  // Headless: the process group is the job itself and exec records it; there is no pane.
  if (placement === undefined) return { job, item };
  const where = {
    pane: launched.paneId,
    terminal_id: launched.terminalId ?? null,
    workspace: launched.workspaceId ?? null,
    tab: launched.tabId ?? null,
  };
  const recorded = await updateJobRecord(ctx, spec.jobId, (record) => {
    if (record === undefined) return { result: { ...job, ...where } };
    const next = { ...record, ...where };
    return { result: next, next };
  });
  const shown = await updateItems(ctx, (items) => {
    const index = items.items.findIndex((entry) => entry.id === spec.itemId);
    const entry = items.items[index];
    if (entry === undefined) return { result: { ...item, pane: where.pane, terminal_id: where.terminal_id } };
    const next = { ...entry, pane: where.pane, terminal_id: where.terminal_id };
    const list = items.items.slice();
    list[index] = next;
    return { result: next, next: { ...items, items: list } };
  });
  return { job: recorded, item: shown, placement };
}

/** What runCommand gave; `placement` is where Herdr put the tab, undefined headless. */
interface Opened {
  launched: LaunchedCommand;
  placement?: TabPlacement;
}

async function openPane(ctx: JobLaunchIO, spec: LaunchSpec, signal: AbortSignal): Promise<Opened> {
  const port = await (
    ctx.terminal ?? (() => openTerminal({ env: ctx.env, home: ctx.home, warn: ctx.warn }))
  )();
  const { request } = spec;
  const options: RunCommandOptions = {
    cwd: request.cwd,
    argv: execArgv(ctx.self ?? selfInvocation(), spec.jobId),
    // exec finds the record through it even when the pane's shell has another environment.
    env: { DOGSLED_STATE: resolve(ctx.paths.dir) },
    label: basename(request.command[0] ?? 'job'),
  };
  if (port.kind === 'headless') {
    // No pane to show the log in: hand the job to the supervisor the service keeps warm, or to the
    // one started ahead for it, or start exec's supervisor directly (one node process, not two).
    if (ctx.warm) {
      const pid = await claimWarm(ctx.paths, spec.jobId, signal);
      if (pid !== undefined) return { launched: { paneId: `headless:${pid}`, pid } };
    }
    const standby = ctx.standby;
    if (standby?.jobId === spec.jobId && standby.cwd === request.cwd && (await standby.go())) {
      return { launched: { paneId: `headless:${standby.pid}`, pid: standby.pid } };
    }
    options.env = { ...options.env, ...headlessSupervisorEnv() };
    return { launched: await port.runCommand(options) };
  }
  if (port.kind === 'tmux') {
    // tmux shows no repositories in its sessions: the job's window opens in the caller's session
    // (else the active one), as its own program, and closes when the job ends.
    if (request.caller_workspace !== null) options.workspaceId = request.caller_workspace;
    const launched = await port.runCommand(options);
    return { launched, placement: { kind: 'active-tab', why: 'active workspace' } };
  }
  const placement = await placeJobTab(port, request.cwd, request.caller_workspace, { env: ctx.env, signal });
  signal.throwIfAborted();
  if (placement.kind === 'workspace') {
    const shown = placement.shows === null ? undefined : await openRepositoryWorkspace(port, placement);
    signal.throwIfAborted();
    if (shown === undefined) {
      options.newWorkspace = true;
      options.label = placement.label;
    } else options.workspaceId = shown;
  } else if (placement.kind === 'tab') {
    options.workspaceId = placement.workspace;
  }
  return { launched: await port.runCommand(options), placement };
}

/**
 * The job runs in no Herdr pane, so its supervisor must not inherit the caller's: exec would report
 * on, and close, the caller's tab.
 */
function headlessSupervisorEnv(): Record<string, string> {
  return { [SUPERVISOR_ENV]: '1', ...outsideAnyPane() };
}

/**
 * Starts job `jobId`'s headless supervisor now, in `cwd`, waiting for launchJob to hand it the job
 * (`go` once the record, item and environment are written); undefined when it cannot start (the
 * launch then starts one the usual way). The caller cancels it in every case: after `go` that does
 * nothing, and a standby whose caller exits without `go` exits too, having touched nothing.
 */
export async function standbySupervisor(
  ctx: Pick<JobLaunchIO, 'env' | 'paths' | 'self'>,
  jobId: string,
  cwd: string,
): Promise<JobStandby | undefined> {
  try {
    const standby = await launchStandby(execArgv(ctx.self ?? selfInvocation(), jobId), {
      cwd,
      env: {
        ...ctx.env,
        DOGSLED_STATE: resolve(ctx.paths.dir),
        ...headlessSupervisorEnv(),
        [STANDBY_ENV]: '1',
      },
    });
    return Object.assign(standby, { jobId, cwd });
  } catch {
    return undefined;
  }
}

/**
 * Opens the repository's workspace through Herdr's worktree verbs, so that Herdr links it to the
 * repository and later jobs there find it (a plain new workspace carries no worktree, and every job
 * would open another). The job then gets a tab in it. Undefined when this Herdr cannot (no worktree
 * verbs, or it does not see a repository there): the caller opens a plain workspace instead.
 */
async function openRepositoryWorkspace(
  port: TerminalPort,
  placement: Extract<TabPlacement, { kind: 'workspace' }>,
): Promise<string | undefined> {
  if (placement.shows === null) return undefined;
  try {
    const opened = await port.openWorktree({
      cwd: placement.shows,
      path: placement.shows,
      label: placement.label,
      focus: false,
    });
    return opened.workspace.workspace_id;
  } catch (error) {
    if (error instanceof TerminalError) return undefined;
    throw error;
  }
}

async function writeJobEnv(ctx: ProcessIO, jobId: string, env: Record<string, string>): Promise<void> {
  writeJobEnvFile(ctx.paths, jobId, env);
}

/** A launch error for a directory that is not there, named as such. */
class MissingDirectory extends DogsledError {}

async function checkDirectory(cwd: string): Promise<void> {
  const found = statSync(cwd, { throwIfNoEntry: false });
  if (found === undefined) throw new MissingDirectory(`directory ${squeezedLine(cwd)} does not exist`);
  if (!found.isDirectory()) throw new MissingDirectory(`${squeezedLine(cwd)} is not a directory`);
}

/**
 * Ends the record, closes the item, removes the environment and ends the reservation, then reports
 * the failure in one line naming the host. A failure after the directory check is judged again:
 * when the directory went away meanwhile, that is the cause, whatever the spawn or Herdr said.
 */
async function failed(launch: JobLaunchIO, spec: LaunchSpec, error: Error): Promise<never> {
  // The undoing is written even past the caller's deadline: it is what keeps the job from running.
  const ctx: JobLaunchIO = { ...launch, signal: undefined };
  let cause: Error = error;
  if (!(error instanceof MissingDirectory)) {
    cause = await checkDirectory(spec.request.cwd).then(
      () => error,
      (missing: Error) => missing,
    );
  }
  const why = squeezedLine(messageOf(cause));
  const now = ctx.now();
  const ended = await updateJobRecord(ctx, spec.jobId, (record) => {
    // exec already started (a reply lost after the line was typed): the job runs; exec ends it.
    if (record === undefined || record.started_ms !== null || record.ended_ms !== null) {
      return { result: false };
    }
    return { result: true, next: { ...record, ended_ms: now, reason: `launch failed: ${why}` } };
  });
  if (ended) {
    // Imported here: a launch that fails is rare, and reserve-room brings the fleet's modules and zod.
    const [{ removeEnvFile }, { endReservations }] = await Promise.all([
      import('../state/records/env-files.js'),
      import('../hosts/reserve-room.js'),
    ]);
    await removeEnvFile(jobEnvPath(ctx.paths, spec.jobId)).catch(() => undefined);
    if (spec.reservation !== null) await endReservations(ctx, [spec.reservation]).catch(() => undefined);
    await updateItems(ctx, (items) => ({
      result: undefined,
      next: {
        ...items,
        items: items.items.map((entry) =>
          entry.id === spec.itemId && entry.closed_ms === null
            ? { ...entry, closed_ms: now, close_reason: 'launch failed' }
            : entry,
        ),
      },
    }));
  }
  // A user-facing failure (Herdr, a lock, the deadline, a system call) is one line; a bug keeps its stack.
  if (!(cause instanceof DogsledError) && (cause as NodeJS.ErrnoException).code === undefined) throw cause;
  throw new DogsledError(`cannot launch job ${spec.jobId} on ${spec.host}: ${why}`, { cause });
}
