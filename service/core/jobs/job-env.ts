// The environment a job runs with, the same under Herdr and headless: the caller's environment as
// `run` saw it, except the variables that say which Herdr pane a process runs in (named by the
// terminal layer, service/terminal/herdr/herdr-env.ts), which are those of the job's own pane (none
// headless), and PWD, which is the job's directory. A job without a saved
// environment (written by hand, or by an older dogsled) runs with its wrapper's, as it always did.

export type Env = Readonly<Record<string, string | undefined>>;

/** Set only in the exec supervisor's own environment; never passed on to the job. */
export const SUPERVISOR_ENV = 'DOGSLED_EXEC_SUPERVISOR';
/**
 * Set as well in a supervisor started ahead of its launch (jobs/launch.ts, `run --wait` headless):
 * it claims nothing until the launcher says `go` on its stdin. Never passed on to the job either.
 */
export const STANDBY_ENV = 'DOGSLED_EXEC_STANDBY';
/**
 * Set as well in the supervisor `serve` keeps warm (jobs/exec-warm.ts): it waits on a socket in the
 * state dir for any launch to hand it a job. Never passed on to the job either.
 */
export const WARM_ENV = 'DOGSLED_EXEC_WARM';
/**
 * Set as well when `serve` made the warm supervisor's socket and handed it over as a descriptor:
 * the inode of supervisor.sock, so the supervisor removes that socket only. Never passed on either.
 */
export const WARM_SOCKET_ENV = 'DOGSLED_EXEC_WARM_SOCKET';
/** The descriptor that socket is handed over on. */
export const WARM_SOCKET_FD = 3;
const MARKERS: ReadonlySet<string> = new Set([SUPERVISOR_ENV, STANDBY_ENV, WARM_ENV, WARM_SOCKET_ENV]);

/** What is saved of the caller's environment for its job: all of it but dogsled's own markers. */
export function callerEnvironment(env: Env): Record<string, string> {
  const saved: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !MARKERS.has(key)) saved[key] = value;
  }
  return saved;
}

/**
 * The job's environment: `caller` (undefined: none was saved, so the wrapper's) with the wrapper's
 * `pane` variables, every one of them named (an empty or unset one is removed, as a headless launch
 * clears them: a job never runs in the caller's pane), in `cwd`.
 */
export function jobEnvironment(
  caller: Env | undefined,
  wrapper: Env,
  cwd: string,
  pane: Env,
): Record<string, string> {
  const env = callerEnvironment(caller ?? wrapper);
  for (const [key, value] of Object.entries(pane)) {
    if (value === undefined || value === '') delete env[key];
    else env[key] = value;
  }
  env.PWD = cwd;
  return env;
}
