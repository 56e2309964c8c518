// Shows a job's output in its pane: the pane's exec follows jobs/ID.log (which the command writes
// directly) and copies it to its own stdout until the supervisor has exited, then copies what the
// log holds at that moment. The pane is only a view: a pane that is slow, closed (EPIPE, EIO) or
// is the log itself never slows or stops the job, whose output is already in the log.

import { fstatSync, statSync, watch } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

const CHUNK_BYTES = 1024 * 1024;
/** The log is re-read this often when no change event came (a missed event only costs latency). */
const POLL_MS = 250;
/** How often to look for the log before the supervisor created it. */
const CREATE_POLL_MS = 25;

export type PaneStream = NodeJS.WritableStream & { fd?: number };

export async function followLog(path: string, pane: PaneStream, ended: Promise<unknown>): Promise<void> {
  const waker = new Waker();
  let done = false;
  const end = () => {
    done = true;
    waker.wake();
  };
  ended.then(end, end);
  let handle: FileHandle | undefined;
  while (handle === undefined) {
    handle = await openIfExists(path);
    if (handle !== undefined) break;
    // No log at all: the job never ran (refused, or stopped before it started).
    if (done) return;
    await waker.sleep(CREATE_POLL_MS);
  }
  const watcher = watchQuietly(path, () => waker.wake());
  try {
    // Nothing to show on /dev/null (a headless launch), and a stdout that is the log itself (a
    // launcher that logs the pane there) must not get the log appended to itself.
    if (await nowhereToShow(handle, pane)) {
      await ended.catch(() => undefined);
      return;
    }
    await copyFollowing(handle, pane, waker, () => done);
  } finally {
    watcher?.close();
    await handle.close();
  }
}

async function copyFollowing(
  handle: FileHandle,
  pane: PaneStream,
  waker: Waker,
  isDone: () => boolean,
): Promise<void> {
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let position = 0;
  /** The log's size when the supervisor exited: a leftover background process may write on. */
  let limit: number | undefined;
  for (;;) {
    const want = limit === undefined ? CHUNK_BYTES : Math.min(CHUNK_BYTES, limit - position);
    if (want <= 0) return;
    const { bytesRead } = await handle.read(buffer, 0, want, position);
    if (bytesRead > 0) {
      position += bytesRead;
      if (!(await writeTo(pane, buffer.subarray(0, bytesRead)))) return;
      continue;
    }
    if (limit !== undefined) return;
    if (isDone()) limit = (await handle.stat()).size;
    else await waker.sleep(POLL_MS);
  }
}

/** Resolves false when the pane is gone; the buffer is free again once it resolves. */
function writeTo(pane: PaneStream, chunk: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      pane.write(chunk, (error) => resolve(!error));
    } catch {
      resolve(false);
    }
  });
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function nowhereToShow(handle: FileHandle, pane: PaneStream): Promise<boolean> {
  if (typeof pane.fd !== 'number') return false;
  try {
    const out = fstatSync(pane.fd);
    if (out.isCharacterDevice()) return out.rdev === statSync('/dev/null').rdev;
    const log = await handle.stat();
    return out.isFile() && out.dev === log.dev && out.ino === log.ino;
  } catch {
    return false;
  }
}

function watchQuietly(path: string, onChange: () => void): { close(): void } | undefined {
  try {
    const watcher = watch(path, { persistent: false }, onChange);
    watcher.on('error', () => {});
    return watcher;
  } catch {
    return undefined;
  }
}

/** A sleep that a change event (or the end) cuts short; a wake between sleeps skips the next one. */
class Waker {
  private pending: (() => void) | undefined;
  private woken = false;

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.pending = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.pending = finish;
    });
  }

  wake(): void {
    if (this.pending) this.pending();
    else this.woken = true;
  }
}
