// `dogsled exec ID`: the wrapper a job pane runs (exec-pane.ts) and, with SUPERVISOR_ENV, the job's
// supervisor (exec-supervise.ts). A supervisor started ahead of its launch (STANDBY_ENV) first
// waits for `go` on its stdin: without it (the launcher closed the pipe, or exited) it exits 0
// having touched nothing. One kept warm by `serve` (WARM_ENV, `exec warm`) waits for a claim on
// supervisor.sock instead (exec-warm.ts). A pane's wrapper runs from a bundle of its own
// (cli/hot/exec-pane.ts), without the supervisor's code: it hands its job to the warm supervisor,
// or starts one, as another process. The wrapper and the warm supervisor are imported where they
// run, so a headless job's supervisor does not set up their modules: the wrapper is a cold file
// beside the supervisor's bundle (scripts/build.mjs), and the warm supervisor stays in the bundle,
// whose code cache then serves the job it is handed (a cold file is compiled from source).

import type { Readable } from 'node:stream';
import { STANDBY_ENV, WARM_ENV } from '../../core/jobs/job-env.js';
import { WARM_ID } from '../../process/self-invocation.js';
import type { ProcessIO } from '../../state/io.js';
import type { ExecPane, PaneStream } from './exec-pane.js';
import { SUPERVISOR_ENV, superviseJob } from './exec-supervise.js';

export { KILL_GRACE_MS } from './exec-child.js';
export type { ExecPane, PaneStream } from './exec-pane.js';
export { EXEC_HERDR_TIMEOUT_MS } from './exec-pane-state.js';
export { SUPERVISOR_ENV } from './exec-supervise.js';

/** This process's streams, as the supervisor uses them (a warm one tells serve `taken` on stdout). */
export interface ExecStreams extends ExecPane {
  out: PaneStream;
  /** This process's stdin, where a standby supervisor hears `go`; asked for only then. */
  input?: () => Readable;
}

/** `command` is what `exec ID -- CMD` named, undefined for `exec ID` (the record's own command). */
export async function execJob(
  io: ProcessIO,
  id: string,
  command: readonly string[] | undefined,
  pane: ExecStreams,
): Promise<number> {
  if (io.env[SUPERVISOR_ENV] !== '1') {
    const { execInPane } = await import('./exec-pane.js');
    return execInPane(io, id, command, pane);
  }
  if (io.env[WARM_ENV] === '1' && id === WARM_ID) {
    const { warmSupervisor } = await import('./exec-warm.js');
    return warmSupervisor(io, pane.input?.(), pane.out);
  }
  if (io.env[STANDBY_ENV] === '1' && !(await goSaid(pane.input?.()))) return 0;
  return superviseJob(io, id, command);
}

/** Whether `go` arrived on `input` before it ended (at most a few bytes are read). */
function goSaid(input: Readable | undefined): Promise<boolean> {
  if (input === undefined) return Promise.resolve(false);
  return new Promise((resolve) => {
    let heard = '';
    const done = (said: boolean) => {
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      input.removeListener('error', onEnd);
      // Nothing more is read: a paused pipe would still keep the event loop, and this process, alive.
      input.on('error', () => {});
      input.destroy();
      resolve(said);
    };
    const onData = (chunk: Buffer | string) => {
      heard += String(chunk);
      if (heard.startsWith('go\n')) done(true);
      else if (heard.length >= 3) done(false);
    };
    const onEnd = () => done(false);
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onEnd);
  });
}
