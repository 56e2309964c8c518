// What a job's final record means to its callers: the exit status `exec`, `wait` and `run --wait`
// return, the state `ps` shows, and the sidebar's lifecycle state and token for its pane (working,
// then idle on success or blocked on failure, with an exit or timeout token).

export interface JobOutcome {
  started_ms: number | null;
  ended_ms: number | null;
  exit_code: number | null;
  signal: string | null;
  reason: string | null;
}

export type JobState = 'created' | 'running' | 'ended';

/** Signal numbers of Linux (and the ones macOS shares), for the shell's 128+N convention. */
const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGTRAP: 5,
  SIGABRT: 6,
  SIGBUS: 7,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGSEGV: 11,
  SIGUSR2: 12,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/** How the sidebar and Herdr know a job pane (an integration source, not a harness). */
export const JOB_AGENT = { source: 'dogsled:job', agent: 'dogsled-job', token: 'dogsled' } as const;

/**
 * A job that exec has not started this long after its record was written never will: its launcher
 * died, or the line typed into its pane was lost. It is as long as setup may take (budget.ts).
 */
export const NEVER_STARTED_MS = 10 * 60_000;
export const NEVER_STARTED = 'never started';

export function neverStarted(job: JobOutcome & { created_ms: number }, now: number): boolean {
  return job.started_ms === null && job.ended_ms === null && now - job.created_ms > NEVER_STARTED_MS;
}

export function jobState(job: JobOutcome): JobState {
  if (job.ended_ms !== null) return 'ended';
  return job.started_ms === null ? 'created' : 'running';
}

/** Job ids are file names: letters, digits, `_` and `-` only, so no id can name a path elsewhere. */
export function isJobId(id: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(id);
}

/**
 * The order jobs are listed in: oldest first, the id breaking a tie by its characters' codes. Not
 * localeCompare: its first call builds ICU's collator, some 70 M instructions (three times a bare
 * Node start) in a `ps --json` that met one tie, and its order follows the user's locale. A job
 * id is `j_` and twelve of a-z and 2-7 (state/engine/ids.ts), which both orders sort alike.
 */
export function oldestFirst(
  a: { created_ms: number; id: string },
  b: { created_ms: number; id: string },
): number {
  return a.created_ms - b.created_ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The reason the reconciler (service/jobs/reconcile.ts) ends a job whose wrapper died with. */
export const WRAPPER_LOST = 'wrapper lost';

/** `lost`: ended by the reconciler because its wrapper died without recording how the job ended. */
export type JobViewState = JobState | 'lost';

/** The state `ps` shows. */
export function viewState(job: JobOutcome): JobViewState {
  if (job.ended_ms !== null && job.reason === WRAPPER_LOST) return 'lost';
  return jobState(job);
}

/**
 * The status of a job that ended without one: its wrapper was lost, it never started, its launch
 * failed, or it was stopped before it ran. Not 1, which means "queued without waiting", nor 2
 * (an error of dogsled itself) or 124 (a wait's deadline): 125 is what wrappers such as timeout(1),
 * env(1) and nohup(1) exit with when they, not the command, failed.
 */
export const NO_STATUS = 125;

/** The status a waiter exits with: the child's exit code, else 128 + its signal, else NO_STATUS. */
export function exitStatusOf(job: JobOutcome): number {
  if (job.exit_code !== null) return job.exit_code;
  if (job.signal !== null) return 128 + (SIGNALS[job.signal] ?? 0);
  return NO_STATUS;
}

export function succeeded(job: JobOutcome): boolean {
  return job.ended_ms !== null && job.exit_code === 0 && job.reason === null;
}

/** The pane's token once the job ended: `exit 3`, `timeout`, `idle timeout`, `stopped`, `SIGKILL`. */
export function endToken(job: JobOutcome): string {
  if (job.reason === 'timeout') return 'timeout';
  if (job.reason === 'idle-timeout') return 'idle timeout';
  if (job.reason === 'stopped') return 'stopped';
  if (job.exit_code !== null) return `exit ${job.exit_code}`;
  if (job.signal !== null) return job.signal;
  return job.reason ?? 'ended';
}

/** Herdr's semantic state for the job pane: working while it runs, then idle or blocked. */
export function sidebarState(job: JobOutcome): 'working' | 'idle' | 'blocked' {
  if (job.ended_ms === null) return 'working';
  return succeeded(job) ? 'idle' : 'blocked';
}
