// The owner record inside a lock dir (`<file>.lock/owner`): who holds the lock (pid, start time,
// host) and a token per acquisition. It is written by the mkdir that takes the lock, through the fs
// that proper-lockfile is given, so a lock dir without one was never completed; and a lock is only
// ever removed by its release while the record is still that acquisition's.

import fs from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readFdBounded } from './bounded-read.js';
import { OWNER_FILE } from './new-owner.js';
import { type LockOwner, parseOwner } from './owner-record.js';
import { readRegular } from './regular-file.js';

export { newOwner, OWNER_FILE } from './new-owner.js';
export { type LockOwner, parseIdentity, parseOwner } from './owner-record.js';

/**
 * The fs proper-lockfile uses for one acquisition: mkdir also writes the owner record (O_EXCL), and
 * removal takes the lock away only while the record is still this acquisition's, so a release after
 * a takeover, or the exit handler, never removes another process's lock.
 */
export function ownerRecordingFs(owner: LockOwner) {
  const text = `${JSON.stringify(owner)}\n`;
  const ownedBy = (record: string | undefined) => parseOwner(record)?.token === owner.token;
  return {
    stat: fs.stat,
    utimes: fs.utimes,
    mkdir: (dir: string, done: (error: NodeJS.ErrnoException | null) => void) => {
      fs.mkdir(dir, (error) => {
        if (error) return done(error);
        const record = join(dir, OWNER_FILE);
        fs.writeFile(record, text, { flag: 'wx', mode: 0o600 }, (failed) => {
          if (!failed) return done(null);
          // EEXIST: someone else's record is in the dir already; it is theirs, leave it.
          if (failed.code === 'EEXIST') return done(failed);
          fs.rm(record, { force: true }, () => fs.rmdir(dir, () => done(failed)));
        });
      });
    },
    rmdir: (dir: string, done: (error: NodeJS.ErrnoException | null) => void) => {
      const record = join(dir, OWNER_FILE);
      readRegular(record)
        .catch(() => undefined)
        .then(async (found) => {
          if (!ownedBy(found)) return;
          await unlink(record);
          await fs.promises.rmdir(dir);
        })
        .then(
          () => done(null),
          (error: NodeJS.ErrnoException) => done(error.code === 'ENOENT' ? null : error),
        );
    },
    rmdirSync: (dir: string) => {
      const record = join(dir, OWNER_FILE);
      let found: string | undefined;
      try {
        const fd = fs.openSync(record, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
        try {
          found = fs.fstatSync(fd).isFile() ? readFdBounded(fd) : undefined;
        } finally {
          fs.closeSync(fd);
        }
      } catch {
        return;
      }
      if (!ownedBy(found)) return;
      fs.unlinkSync(record);
      fs.rmdirSync(dir);
    },
  };
}

export async function readOwner(path: string): Promise<LockOwner | null> {
  try {
    return parseOwner(await readRegular(path));
  } catch {
    return null;
  }
}
