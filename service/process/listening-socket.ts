// A Unix socket put in place listening before the process that will accept on it has started: the
// service makes supervisor.sock this way for each warm supervisor it starts (daemon/warm-worker.ts),
// hands the descriptor to it (launch-detached.ts, launchWarm) and closes its own copy at once. A
// launch that connects while that Node is still starting waits in the socket's backlog for it,
// instead of finding no socket and starting a second Node of its own.
//
// Made through the pipe handle node:net's servers are built on (the `pipe_wrap` binding, through
// node-binding.ts): a net.Server would accept, in this process, a connection meant for the child,
// and hides its descriptor. The handle is bound, listens and is closed in one synchronous stretch,
// so this process's event loop never runs while it listens and never accepts. Undefined where the
// binding is not there as expected, or the path cannot take the socket (a directory in its place):
// the child then listens by itself, as before.

import { chmodSync, lstatSync, renameSync, unlinkSync } from 'node:fs';
import { nodeBinding } from './node-binding.js';

/** Connections waiting for the child to accept them; a few launches at once at most. */
const BACKLOG = 64;

interface ServerHandle {
  bind(path: string): number;
  listen(backlog: number): number;
  readonly fd: number;
  close(): void;
}

interface PipeServerBinding {
  Pipe: new (type: number) => ServerHandle;
  constants: { SERVER: number };
}

/** A socket listening at its path, whose descriptor this process still holds. */
export interface ListeningSocket {
  /** The descriptor, for a child's stdio; valid until close(). */
  readonly fd: number;
  /** The inode at the path, so that only this socket is ever removed from it. */
  readonly ino: number;
  /** Closes this process's copy: the socket lives on in the child it was given to, if any. */
  close(): void;
}

function pipeBinding(): PipeServerBinding | undefined {
  const pipe = nodeBinding('pipe_wrap') as Partial<PipeServerBinding> | undefined;
  const fits = typeof pipe?.Pipe === 'function' && typeof pipe.constants?.SERVER === 'number';
  return fits ? (pipe as PipeServerBinding) : undefined;
}

/**
 * A socket listening at `path` (bound under a private name, given `mode`, then renamed onto it, so
 * no one connects before its mode is set; a stale socket there is replaced, never a directory), or
 * undefined when it cannot be made.
 */
export function listeningSocket(path: string, mode: number): ListeningSocket | undefined {
  const pipe = pipeBinding();
  if (pipe === undefined) return undefined;
  const own = `${path}.${process.pid}`;
  removeQuietly(own);
  let handle: ServerHandle;
  try {
    handle = new pipe.Pipe(pipe.constants.SERVER);
  } catch {
    return undefined;
  }
  let ino: number;
  try {
    if (handle.bind(own) !== 0 || handle.listen(BACKLOG) !== 0 || !(handle.fd >= 0))
      throw new Error('not bound');
    chmodSync(own, mode);
    renameSync(own, path);
    ino = lstatSync(path).ino;
  } catch {
    handle.close();
    removeQuietly(own);
    return undefined;
  }
  const { fd } = handle;
  let open = true;
  return {
    fd,
    ino,
    close: () => {
      if (open) handle.close();
      open = false;
    },
  };
}

/** Removes the socket at `path` if it is still the one with inode `ino` (a later one is left). */
export function removeSocket(path: string, ino: number): void {
  try {
    const found = lstatSync(path, { throwIfNoEntry: false });
    if (found?.isSocket() && found.ino === ino) unlinkSync(path);
  } catch {
    // Gone already, or not ours to judge.
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Not there.
  }
}
