// Asking the local service for a cleanup pass (spec, "The sweep in serve"): the stop gate writes the
// durable sweep-request.json, then pokes sweep.sock so the service looks at once. The socket is only
// a wake-up: when it is absent, refused or slow, the service still finds the request on its next
// publication interval. Never runs the survey itself.

import type { StateIO } from '../state/io.js';
import { writeSweepRequest } from './sweep-files.js';

/** The poke gets this long; a hook has five seconds in all. */
const WAKE_MS = 300;

export interface SweepAsk {
  /** Whether sweep.sock took the poke (false: the service finds it on its interval). */
  woke: boolean;
}

export async function requestSweep(io: StateIO, by: string | null): Promise<SweepAsk> {
  await writeSweepRequest(io, by);
  return { woke: await wake(io.paths.sweepSock) };
}

function wake(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = process.getBuiltinModule('node:net').connect(path);
    const done = (woke: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(woke);
    };
    const timer = setTimeout(() => done(false), WAKE_MS);
    timer.unref();
    socket.on('connect', () => socket.end('sweep\n', () => done(true)));
    socket.on('error', () => done(false));
  });
}
