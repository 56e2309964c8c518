// Random bytes from the kernel's CSPRNG (/dev/urandom), the source node:crypto's randomBytes draws
// from too, without loading node:crypto: its module graph costs a few milliseconds of start-up,
// and every command that writes a state file (a temp name, a lock token, a record id) needs bytes.
// Falls back to node:crypto where /dev/urandom cannot be read.

import { closeSync, openSync, readSync } from 'node:fs';

export function randomBytes(size: number): Buffer {
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
