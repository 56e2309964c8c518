// A Unix socket in the state directory that only its user can connect to: bound under a private
// name, made 0600, then renamed onto its path, so no one connects before its mode is set. Used for
// supervisor.sock (the warm supervisor), sweep.sock (the service's cleanup wake-up) and
// peer-read.sock (commands' peer reads through the service's pool).

import { chmod, lstat, rename, unlink } from 'node:fs/promises';
import type { Server } from 'node:net';
import { messageOf } from '../../core/common/errors.js';
import { STATE_FILE_MODE } from '../paths.js';

/** Listens at `path` (replacing a stale socket, never a directory); returns the socket's inode. */
export async function listenPrivate(server: Server, path: string): Promise<number> {
  const own = `${path}.${process.pid}`;
  await unlink(own).catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(own, () => {
      server.off('error', reject);
      resolve();
    });
  });
  try {
    await chmod(own, STATE_FILE_MODE);
    await rename(own, path);
    return (await lstat(path)).ino;
  } catch (error) {
    server.close();
    await unlink(own).catch(() => undefined);
    throw new Error(`cannot listen on ${path}: ${messageOf(error)}`);
  }
}

/**
 * Makes way for a service's socket at `path`: a socket left by an earlier service is removed (the
 * caller holds the service lock, so it is no one's now). Says why the path cannot be used (`is a
 * directory, not a socket`, `cannot be checked (EACCES)`), or undefined when it is clear.
 */
export async function clearStaleSocket(path: string): Promise<string | undefined> {
  try {
    const stats = await lstat(path);
    if (stats.isSocket()) {
      await unlink(path);
      return undefined;
    }
    return `is ${stats.isDirectory() ? 'a directory' : stats.isFIFO() ? 'a FIFO' : 'a file'}, not a socket`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? undefined : `cannot be checked (${code ?? messageOf(error)})`;
  }
}

/**
 * A service's socket at `path`: a stale one cleared, then `server` listening there privately and
 * unref'd (the socket never keeps the service up). False, after `warn` says why in a few words,
 * when the path cannot be used; the service then runs without that socket.
 */
export async function bindServiceSocket(
  server: Server,
  path: string,
  warn: (why: string) => void,
): Promise<boolean> {
  const blocked = await clearStaleSocket(path);
  if (blocked !== undefined) {
    warn(blocked);
    return false;
  }
  try {
    await listenPrivate(server, path);
  } catch (error) {
    warn(`cannot be bound (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`);
    return false;
  }
  server.unref();
  return true;
}
