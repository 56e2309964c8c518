// A front end that asks dogsled through its CLI, as a process of its own: the Pi extension (it runs
// inside Pi, so every verb it calls is the installed binary's, whatever release the extension is)
// and the sidebar's stop, cancel, close and send (run through the CLI, each keeps its own checks,
// locks and wording). The one process runner does the call: argv only, the caller's environment, a
// deadline that escalates to SIGKILL, capped output. A binary that cannot be started throws
// SpawnError; every other ending is in the result.

import { type RunResult, runProcess } from '../process/run-process.js';

export { SpawnError } from '../process/run-process.js';
export type { RunResult };

export interface DogsledCall {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Written to the CLI's stdin (a message to send: never in argv); absent: stdin is /dev/null. */
  input?: string;
  maxOutputBytes?: number;
  cwd?: string;
  signal?: AbortSignal;
}

/** `file args…`: `$DOGSLED_BIN verb…`, or Node running the CLI's entry this process runs. */
export function runDogsled(file: string, args: readonly string[], call: DogsledCall): Promise<RunResult> {
  const { env, timeoutMs, input, maxOutputBytes, cwd, signal } = call;
  return runProcess(file, args, {
    env,
    timeoutMs,
    ...(input === undefined ? {} : { input }),
    ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }),
    ...(cwd === undefined ? {} : { cwd }),
    ...(signal === undefined ? {} : { signal }),
  });
}
