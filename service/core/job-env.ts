// The environment a job runs with, the same under Herdr and headless: the caller's environment as
// `run` saw it, except the variables that say which Herdr pane a process runs in, which are those of
// the job's own pane (none headless), and PWD, which is the job's directory. A job without a saved
// environment (written by hand, or by an older dogsled) runs with its wrapper's, as it always did.

export type Env = Readonly<Record<string, string | undefined>>;

/** Where a process runs in Herdr: never the caller's pane for a job, which runs in a pane of its own. */
export const PANE_VARIABLES = ['HERDR_ENV', 'HERDR_PANE_ID', 'HERDR_TAB_ID', 'HERDR_WORKSPACE_ID'] as const;

/** Set only in the exec supervisor's own environment; never passed on to the job. */
export const SUPERVISOR_ENV = 'DOGSLED_EXEC_SUPERVISOR';

/** What is saved of the caller's environment for its job: all of it but dogsled's own marker. */
export function callerEnvironment(env: Env): Record<string, string> {
  const saved: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && key !== SUPERVISOR_ENV) saved[key] = value;
  }
  return saved;
}

/**
 * The job's environment: `caller` (undefined: none was saved, so the wrapper's) with the wrapper's
 * pane variables (an empty one counts as unset, as a headless launch clears them), in `cwd`.
 */
export function jobEnvironment(caller: Env | undefined, wrapper: Env, cwd: string): Record<string, string> {
  const env = callerEnvironment(caller ?? wrapper);
  for (const key of PANE_VARIABLES) {
    const value = wrapper[key];
    if (value === undefined || value === '') delete env[key];
    else env[key] = value;
  }
  env.PWD = cwd;
  return env;
}
