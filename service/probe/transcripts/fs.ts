// The file operations transcript discovery and reading need, behind one small interface so tests
// can stand in a failing reader (tests run as root, where chmod cannot make a file unreadable).
// "Not there" is an answer (undefined); any other failure throws and the caller decides.

import { statSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';

export interface FileFacts {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
  mtimeMs: number;
  /**
   * Inode and status change time, where the file system gives them. With size and mtime they tell
   * the very file seen before: a file renamed over it has another inode, and a chmod or any write
   * moves ctime, so an unchanged identity needs no second open or read (see sameFile).
   */
  ino?: number;
  ctimeMs?: number;
}

/**
 * Whether two stats show the same file, unchanged: only when both carry an inode and change time
 * (a stand-in file system without them never matches, so its files are read every time).
 */
export function sameFile(a: FileFacts, b: FileFacts): boolean {
  return (
    a.ino !== undefined &&
    a.ctimeMs !== undefined &&
    a.ino === b.ino &&
    a.ctimeMs === b.ctimeMs &&
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.isFile === b.isFile
  );
}

export interface TranscriptFs {
  /** Facts of a path (following symlinks), or undefined when it does not exist. */
  stat(path: string): Promise<FileFacts | undefined>;
  /** Entry names of a directory, or undefined when it does not exist. */
  readdir(path: string): Promise<string[] | undefined>;
  /** Up to `length` bytes from `position`. Throws when the file cannot be opened or read. */
  read(path: string, position: number, length: number): Promise<Buffer>;
}

function missing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export const nodeTranscriptFs: TranscriptFs = {
  // Synchronous: the service stats every pane's transcript and every session directory each tick,
  // and an asynchronous stat costs a thread-pool round trip (some 50 µs of CPU here, against 3 µs
  // for the system call itself); a quiet pane costs nothing else.
  async stat(path) {
    try {
      const s = statSync(path, { throwIfNoEntry: false });
      if (s === undefined) return undefined;
      return {
        isFile: s.isFile(),
        isDirectory: s.isDirectory(),
        size: s.size,
        mtimeMs: s.mtimeMs,
        ino: s.ino,
        ctimeMs: s.ctimeMs,
      };
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
  },
  async readdir(path) {
    try {
      return await readdir(path);
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
  },
  async read(path, position, length) {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  },
};
