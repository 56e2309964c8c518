// The poke on sweep.sock that makes the service look at sweep-request.json at once. Only a wake-up:
// when the socket is absent, refused or slow, the service still finds the request on its next
// publication interval. A module of its own, so the lean hook pokes without the sweep's schemas.
//
// The service counts a connection as the poke (sweep-worker.ts), so nothing needs to be written:
// the poke connects and hangs up. On every Stop of every agent that is the hook's one use of a
// socket, and loading node:net with its streams for it costs more than the rest of the request
// (some 12 M instructions of a Node start's 87 M): it connects through the pipe handle node:net
// itself is built on (state/engine/pipe-handle.ts), and uses node:net only where that handle is not
// there as it expects. A connection that never completes is closed by the poke's timer.

import { type PipeBinding, pipeBinding } from '../state/engine/pipe-handle.js';

/** The poke gets this long; a hook has five seconds in all. */
const WAKE_MS = 300;

/** Whether the socket took the poke (false: the service finds the request on its interval). */
export function wakeSweeper(path: string): Promise<boolean> {
  const pipe = pipeBinding();
  return pipe === undefined ? wakeWithNet(path) : wakeWithPipe(pipe, path);
}

function wakeWithPipe(pipe: PipeBinding, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const handle = new pipe.Pipe(pipe.constants.SOCKET);
    let settled = false;
    const done = (woke: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      handle.close();
      resolve(woke);
    };
    const timer = setTimeout(() => done(false), WAKE_MS);
    const request = new pipe.PipeConnectWrap();
    request.oncomplete = (status) => done(status === 0);
    let failed: number;
    try {
      failed = handle.connect(request, path);
    } catch {
      failed = -1;
    }
    if (failed !== 0) done(false);
  });
}

function wakeWithNet(path: string): Promise<boolean> {
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
