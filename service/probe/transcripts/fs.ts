// The file operations transcript discovery and reading need, behind one small interface so tests
// can stand in a failing reader (tests run as root, where chmod cannot make a file unreadable).
// "Not there" is an answer (undefined); any other failure throws and the caller decides.

import { open, readdir, stat } from 'node:fs/promises';

export interface FileFacts {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
  mtimeMs: number;
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
  async stat(path) {
    try {
      const s = await stat(path);
      return { isFile: s.isFile(), isDirectory: s.isDirectory(), size: s.size, mtimeMs: s.mtimeMs };
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
