// Random bytes from the kernel's CSPRNG (/dev/urandom), the source node:crypto's randomBytes draws
// from too, without loading node:crypto: its module graph costs a few milliseconds of start-up,
// and every command that writes a state file (a temp name, a lock token, a record id) needs bytes.
// Read a block at a time and handed out in order, never twice: a placement draws five small
// numbers (two lock tokens, two temp names, an id), and each was an open, a read and a close of
// /dev/urandom of its own. Each call gets a view of bytes no other call gets (no copy: a copy's
// Buffer functions are a lazy compile of Node's own on every hot command, dearer than the reads).
// Falls back to node:crypto where /dev/urandom cannot be read.

import { closeSync, openSync, readSync } from 'node:fs';

/** What one read of /dev/urandom fetches: some dozens of tokens, names and ids. */
const BLOCK_BYTES = 256;

let block: Buffer | undefined;
let used = 0;

export function randomBytes(size: number): Buffer {
  if (size > BLOCK_BYTES) return readRandom(size);
  if (block === undefined || used + size > block.length) {
    block = readRandom(BLOCK_BYTES);
    used = 0;
  }
  const bytes = block.subarray(used, used + size);
  used += size;
  return bytes;
}

function readRandom(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      let filled = 0;
      while (filled < size) {
        const got = readSync(fd, bytes, filled, size - filled, null);
        if (got <= 0) throw new Error('short read');
        filled += got;
      }
      return bytes;
    } finally {
      closeSync(fd);
    }
  } catch {
    return process.getBuiltinModule('node:crypto').randomBytes(size);
  }
}
