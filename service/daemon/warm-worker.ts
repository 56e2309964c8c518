// The service keeps one job supervisor warm (jobs/exec-warm.ts) so a waiting headless `run` hands
// its job over instead of starting a second Node. One at a time: the next starts once this one says
// it was taken or is gone. One that dies unclaimed is replaced at once the first time, then after
// the spec's backoff (10 s, 20 s, ... 5 min), so a crash loop costs little. Each is a child of the
// service in its own session, its stdin a pipe from here: unclaimed, it leaves when the service goes.
// Its socket is made here, listening, the moment the one before was taken (process/listening-socket.ts),
// and handed to it: a launch that comes while its Node is still starting waits for it in the
// socket's backlog, rather than finding none and starting a Node of its own (two in a row, for a
// pane's wrapper). Where that socket cannot be made, the supervisor makes its own, as it always did.
// The one started after a take is held behind a shell until the taken one exits or WARM_HOLD_MS
// passes, so its Node start does not compete with the job's claim, spawn and final record.

import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs } from '../core/common/backoff.js';
import { messageOf } from '../core/common/errors.js';
import { knobVariable, testKnob } from '../core/common/test-knobs.js';
import { SUPERVISOR_ENV, WARM_ENV, WARM_SOCKET_ENV } from '../core/jobs/job-env.js';
import { launchWarm, type Warm } from '../process/launch-detached.js';
import { type ListeningSocket, listeningSocket, removeSocket } from '../process/listening-socket.js';
import { execArgv, selfInvocation, WARM_ID } from '../process/self-invocation.js';
import type { ProcessIO } from '../state/io.js';
import { STATE_FILE_MODE } from '../state/paths.js';
import { outsideAnyPane } from '../terminal/herdr/herdr-env.js';
import { longTimeout } from '../time/timers.js';

export interface WarmKeeperIO extends Pick<ProcessIO, 'paths' | 'env' | 'warn'> {
  /** The argv prefix that runs dogsled (`[node, dist/dogsled.cjs]`); default: this process's own. */
  self?: readonly string[];
}

export interface WarmKeeper {
  stop(): Promise<void>;
}

/** Keeps a warm supervisor until `signal` aborts or stop(); the one then waiting leaves. */
export function startWarmKeeper(io: WarmKeeperIO, signal: AbortSignal): WarmKeeper {
  const stopper = new AbortController();
  const stopped = AbortSignal.any([signal, stopper.signal]);
  let current: Warm | undefined;
  let currentSocket: ListeningSocket | undefined;
  const stopping = aborted(stopped);
  const done = (async () => {
    let deaths = 0;
    let warned = '';
    // The one taken last, while its job may still be starting: the next one is started held.
    let taken: Warm | undefined;
    while (!stopped.aborted) {
      let warm: Warm;
      const socket = listeningSocket(io.paths.supervisorSock, STATE_FILE_MODE);
      const before = taken;
      taken = undefined;
      const argv = execArgv(io.self ?? selfInvocation(), WARM_ID);
      try {
        warm = await launchWarm(before === undefined ? argv : heldArgv(argv), {
          cwd: io.paths.dir,
          env: warmEnv(io, socket),
          socket,
        });
      } catch (error) {
        // Nobody will accept on it: a launch must find no socket, not one that never answers.
        if (socket !== undefined) removeSocket(io.paths.supervisorSock, socket.ino);
        const message = messageOf(error);
        if (message !== warned) io.warn(`dogsled serve: warm supervisor: cannot start: ${message}`);
        warned = message;
        await pause(backoffDelayMs(deaths++, Math.random()), stopped);
        continue;
      }
      current = warm;
      currentSocket = socket;
      if (stopped.aborted) break;
      if (before !== undefined)
        releaseWhenSettled(warm, before, testKnob(io.env, 'WARM_HOLD_MS') ?? WARM_HOLD_MS);
      const outcome = await Promise.race([warm.taken, stopping]);
      if (outcome === 'stop') break;
      current = undefined;
      currentSocket = undefined;
      // Taken, it no longer reads the pipe; gone, there is no one to read it.
      warm.cancel();
      // Gone unclaimed: its socket answers no one now (refused), and while the next waits out a
      // backoff, a launch that finds no socket starts its supervisor ahead, as with no service.
      if (outcome === 'gone' && socket !== undefined) removeSocket(io.paths.supervisorSock, socket.ino);
      deaths = outcome === 'taken' ? 0 : deaths + 1;
      if (outcome === 'taken') taken = warm;
      if (deaths < 2) continue;
      const wait = backoffDelayMs(deaths - 2, Math.random());
      // Said once per loop: the service's log gets one line, not one per try.
      if (deaths === 2) {
        io.warn(
          `dogsled serve: warm supervisor: exited twice before taking a job; retrying with backoff (${Math.round(wait / 1000)}s, then longer); runs start their own meanwhile`,
        );
      }
      await pause(wait, stopped);
    }
    current?.cancel();
    // Unclaimed, a supervisor removes its socket as it leaves, but one still held never became
    // the Node that would: the path must not keep a socket nobody will accept on.
    if (currentSocket !== undefined) removeSocket(io.paths.supervisorSock, currentSocket.ino);
  })();
  return {
    stop: async () => {
      stopper.abort();
      await done;
    },
  };
}

/**
 * How long at most the next warm supervisor's Node waits, once one is taken, for the taken one to
 * exit. A Node start is a core's worth of work for some 60 ms: begun beside the job's claim, spawn
 * and final record, on a 2-core host it took about a fifth of a quick `run --wait` (docs/benchmarks.md,
 * thirteenth round). Its socket is in place from the start, so a launch that comes meanwhile waits
 * in the backlog at most this much longer, and a long job's next supervisor is warm by then.
 */
export const WARM_HOLD_MS = 100;

/**
 * The warm supervisor's argv behind a shell that waits for one line on stdin (release) before it
 * becomes the Node, in the same process: so the pid, the handed socket (descriptor 3), the pipes
 * and the environment are the ones the service started. Stdin closed first (the service went, or
 * stopped keeping one warm): it leaves, having started nothing. `read` takes the pipe a byte at a
 * time, so the Node finds the leash as the service left it.
 */
function heldArgv(argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', 'read -r go || exit 0; exec "$@"', 'dogsled-warm-held', ...argv];
}

/** Releases `next` once `taken` has exited, or after `holdMs` (any length), whichever comes first. */
function releaseWhenSettled(next: Warm, taken: Warm, holdMs: number): void {
  const timer = longTimeout(holdMs, () => next.release(), { ref: false });
  void taken.exited.then(() => {
    timer.clear();
    next.release();
  });
}

/**
 * The service's environment with the supervisor's markers, as a launch's supervisor gets it
 * (jobs/launch.ts): the job itself runs with its caller's (jobs/ID.env). A test's lock pause is
 * the service's, not its jobs'.
 */
function warmEnv(io: WarmKeeperIO, socket: ListeningSocket | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...io.env,
    DOGSLED_STATE: resolve(io.paths.dir),
    [SUPERVISOR_ENV]: '1',
    [WARM_ENV]: '1',
    ...outsideAnyPane(),
  };
  if (socket === undefined) delete env[WARM_SOCKET_ENV];
  else env[WARM_SOCKET_ENV] = String(socket.ino);
  delete env[knobVariable('LOCK_HOLD_FILE')];
  delete env[knobVariable('LOCK_HOLD_MS')];
  delete env[knobVariable('LOCK_HOLD_STOP')];
  return env;
}

function aborted(signal: AbortSignal): Promise<'stop'> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve('stop');
    else signal.addEventListener('abort', () => resolve('stop'), { once: true });
  });
}

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  await sleep(ms, undefined, { signal, ref: false }).catch(() => undefined);
}
