// What `dogsled run` does, for every caller (the CLI, and the MCP server and Pi extension later):
// check the command, submit it (placed now, or queued behind waiting work or a full fleet), launch
// a placed job in its own pane, and with `wait` follow its output until it ends. One deadline covers
// all of it; a wait that reaches it leaves the job or ticket as it is and says so in the outcome.
// A headless run hands its job to the supervisor the service keeps warm, so only the caller's
// Node starts; with no service it starts its job's supervisor before placing (jobs/launch.ts), so the
// two Node start-ups overlap instead of adding up.

import type { Item } from '../core/agents/item-types.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { callerEnvironment } from '../core/jobs/job-env.js';
import type { JobRecord } from '../core/jobs/job-types.js';
import { findHost } from '../core/placement/placement.js';
import type { JobRequest, Ticket } from '../core/placement/queue-types.js';
import type { PeerHost } from '../hosts/fleet.js';
import { LOCAL_HOST } from '../hosts/local-view.js';
import { glanceReserve } from '../hosts/reserve-glance.js';
import { checkCommand } from '../jobs/command-check.js';
import { type JobStandby, launchJob, standbySupervisor } from '../jobs/job-launch.js';
import { followJobLog, type LogWrite } from '../jobs/job-logs.js';
import { callerWorkspaceOf } from '../jobs/tab-placement-facts.js';
import { warmListening } from '../jobs/warm-claim.js';
import { newId } from '../state/engine/ids.js';
import type { HostIO } from '../state/io.js';
import { readJobRecord } from '../state/records/job-records.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import { openTerminal } from '../terminal/open.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Deadline } from '../time/deadline.js';
import { mark } from '../time/timing.js';
import type { UserHostIO } from './verb-io.js';

/** Arguments Node could not decode are refused before anything else is read (command-check.ts). */
export { checkArgumentsText } from '../jobs/command-check.js';
export type { JobRecord, LogWrite };

/** The paths off the common one (run-elsewhere.ts), loaded on first use. */
const elsewhere = () => import('./run-elsewhere.js');

export interface RunJobRequest {
  command: string[];
  /** An existing directory, as an absolute real path. */
  cwd: string;
  timeoutMs: number | null;
  idleTimeoutMs: number | null;
  /** A host id or label (`--host`), else null. */
  pin: string | null;
  /** Wait for admission and for the job's end (`--wait`). */
  wait: boolean;
  /** `--branch` (and `--base`): the job runs in that branch's worktree of `cwd`'s repository. */
  branch?: { name: string; base: string | null } | null;
}

export type RunJobOutcome =
  /** Launched, and not waited for. */
  | { kind: 'started'; job: JobRecord; item: Item; label: string }
  /** Queued, and not waited for. */
  | { kind: 'queued'; ticket: Ticket }
  /** Waited for: the job's final record. */
  | { kind: 'ended'; record: JobRecord }
  /** The deadline came while the job ran (it keeps running). */
  | { kind: 'still-running'; record: JobRecord }
  /** The deadline or the user ended the wait for the ticket (it stays pending). */
  | { kind: 'still-queued'; ticket: Ticket; why: 'deadline' | 'interrupted' };

/**
 * The user hears of a ticket at once (UserIO.queued), may interrupt the wait for its admission
 * (untilStopped), and with `wait` gets the job's output (output; without one it is not shown).
 */
export async function runJob(
  io: UserHostIO,
  request: RunJobRequest,
  deadline: Deadline,
): Promise<RunJobOutcome> {
  const { command, cwd } = request;
  const local = request.pin === null || findHost([LOCAL_HOST], request.pin) !== undefined;
  // A job pinned to a peer is checked there, in its directory and on its PATH.
  if (local) await checkCommand(command, cwd, io.env);
  // The job runs with the caller's environment, under Herdr as headless (core/job-env.ts).
  const env = callerEnvironment(io.env);
  const owner = callerPane(io.env);
  const port = await deadline.step('finding Herdr', 'routine', () =>
    openTerminal({
      env: io.env,
      home: io.home,
      commandName: 'run',
      warn: io.warn,
      configTerminal: io.config.terminal,
    }),
  );
  const jobId = newId('j');
  // The service's warm supervisor takes a headless job when there is one, waited for or not: the
  // caller's path has one Node start and the job starts without one of its own. Else a waiting run
  // starts its supervisor ahead, only where it is likely used (a queued run or one placed on a peer
  // sends it away unused).
  const headless = local && port.kind === 'headless';
  const warm = headless && (await warmListening(io.paths));
  const standby =
    headless && request.wait && !warm && !request.branch
      ? await standbySupervisor(io, jobId, cwd)
      : undefined;
  try {
    return await placeAndRun(io, request, deadline, {
      port,
      owner,
      env,
      jobId,
      standby,
      warm,
      local,
    });
  } finally {
    standby?.cancel();
  }
}

interface Prepared {
  port: TerminalPort;
  owner: string | null;
  env: Record<string, string>;
  jobId: string;
  standby: JobStandby | undefined;
  /** A warm supervisor seemed to listen: the launch hands it the job first. */
  warm: boolean;
  /** Unpinned or pinned to this host: its command and checkout are checked here. */
  local: boolean;
}

async function placeAndRun(
  io: UserHostIO,
  request: RunJobRequest,
  deadline: Deadline,
  { port, owner, env, jobId, standby, warm, local }: Prepared,
): Promise<RunJobOutcome> {
  const output: LogWrite = io.output ?? (() => {});
  const { command, cwd } = request;
  const callerWorkspace = await deadline.step("finding the caller's workspace", 'routine', () =>
    callerWorkspaceOf(port, owner).catch((error: unknown) => {
      io.warn(`dogsled: warning: run: cannot find the caller's Herdr workspace: ${messageOf(error)}`);
      return null;
    }),
  );
  const branch = request.branch ?? null;
  // What needs no lock is refused before anything is placed; a peer's checkout is checked there.
  if (branch !== null && local) {
    await (await elsewhere()).checkBranchRequest(branchAsk(cwd, branch), { ...io, terminal: port });
  }
  const job: JobRequest = {
    command,
    cwd,
    timeout_ms: request.timeoutMs,
    idle_timeout_ms: request.idleTimeoutMs,
    caller_workspace: callerWorkspace,
    ...(branch === null ? {} : { branch: branch.name, base: branch.base }),
  };
  const submission = { request: job, pin: request.pin, owner, waiting: request.wait, env };
  // The signal reaches every write: a placement that ran out of time writes nothing afterwards.
  // Unpinned, this host's common case is placed as the lean `place` places it (no zod, each file
  // read once); anything it doubts was left unwritten for submitWork, which answers as always.
  const outcome = await deadline.step(
    'placement',
    'routine',
    async (signal) =>
      (request.pin === null ? await glanceReserve({ ...io, signal }, owner) : undefined) ??
      (await elsewhere()).submitWork({ ...io, signal }, submission),
  );
  mark(`run: ${outcome.kind}`);
  // Sent away as soon as it is known unused, not after a wait for admission.
  if (outcome.kind === 'queued' || outcome.host !== LOCAL_HOST.id) standby?.cancel();
  if (outcome.kind === 'queued') {
    io.queued?.(outcome);
    if (!request.wait) return { kind: 'queued', ticket: outcome.ticket };
    const waited = await (await elsewhere()).awaitTicket(io, outcome.ticket.id, deadline, io.untilStopped);
    if (waited.kind === 'gave-up') return { kind: 'still-queued', ticket: outcome.ticket, why: waited.why };
    const admitted = waited.ticket;
    if (admitted.job === null) throw new DogsledError(`ticket ${admitted.id} was admitted without a job`);
    return follow(io, admitted.job, deadline, output);
  }
  if (outcome.host !== LOCAL_HOST.id) {
    const { enabledPeers, launchRemoteJob, remoteWorktree } = await elsewhere();
    const peer = (await enabledPeers(io)).find((p) => p.id === outcome.host);
    if (peer === undefined) throw new DogsledError(`host ${outcome.host} left the fleet while placing`);
    const inWorktree =
      branch === null
        ? job
        : {
            ...job,
            cwd: (
              await remoteWorktree(
                io,
                peer,
                { cwd, branch: branch.name, base: branch.base, command: 'run' },
                deadline,
              )
            ).path,
          };
    const spec = {
      jobId: newId('j'),
      itemId: newId('i'),
      request: inWorktree,
      owner,
      ticket: null,
      reservation: outcome.reservation.id,
    };
    const launched = await deadline.step(`launching the job on ${peer.label}`, 'routine', (signal) =>
      launchRemoteJob(io, peer, spec, { signal }),
    );
    if (request.wait) return followRemote(io, peer, launched.job.id, deadline, output);
    return { kind: 'started', job: launched.job, item: launched.item, label: outcome.label };
  }
  const inWorktree = await jobInWorktree({ ...io, terminal: port }, job, deadline);
  const launched = await launchJob(
    { ...io, terminal: async () => port, standby, warm },
    {
      jobId,
      itemId: newId('i'),
      request: inWorktree,
      owner,
      host: outcome.host,
      ticket: null,
      reservation: outcome.reservation.id,
      env,
    },
    deadline,
  );
  standby?.cancel();
  mark('run: launched');
  if (request.wait) return follow(io, launched.job.id, deadline, output);
  return { kind: 'started', job: launched.job, item: launched.item, label: outcome.label };
}

/** As follow, for a job on a peer: its log read there, each read bounded by 30 s. */
async function followRemote(
  io: HostIO,
  peer: PeerHost,
  jobId: string,
  deadline: Deadline,
  output: LogWrite,
): Promise<RunJobOutcome> {
  const signal = deadline.signal();
  const { remoteJob, remoteLogs } = await elsewhere();
  try {
    const record = await remoteLogs(io, peer, jobId, { follow: true, write: output, signal });
    return { kind: 'ended', record };
  } catch (error) {
    if (!signal.aborted) throw error;
    return { kind: 'still-running', record: await remoteJob(io, peer, jobId) };
  }
}

function branchAsk(cwd: string, branch: { name: string; base: string | null }) {
  return { repo: cwd, branch: branch.name, base: branch.base ?? undefined, command: 'run' };
}

/**
 * A `--branch` job's request with its directory in the branch's worktree, made or reused on this
 * host (for `run` once placed, and for the service's admission of its ticket); others unchanged.
 */
export async function jobInWorktree(
  io: HostIO & { terminal?: TerminalPort },
  job: JobRequest,
  deadline: Deadline,
): Promise<JobRequest> {
  if (job.branch === undefined || job.branch === null) return job;
  const ask = branchAsk(job.cwd, { name: job.branch, base: job.base ?? null });
  const worktree = await (await elsewhere()).ensureBranchWorktree(ask, { ...io, deadline });
  return { ...job, cwd: worktree.path };
}

/** Streams the job's output as it is written until it ends, or until the deadline. */
async function follow(
  io: HostIO,
  jobId: string,
  deadline: Deadline,
  output: LogWrite,
): Promise<RunJobOutcome> {
  const signal = deadline.signal();
  try {
    const record = await followJobLog(io, jobId, { write: output, signal });
    mark('run: job ended');
    return { kind: 'ended', record };
  } catch (error) {
    if (!signal.aborted) throw error;
    return { kind: 'still-running', record: await readJobRecord(io.paths, jobId) };
  }
}
