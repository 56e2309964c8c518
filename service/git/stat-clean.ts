// A linked worktree proven clean from its files alone, so a survey spends no `git status` on the
// common case. It takes exactly the two shortcuts `git status` itself takes, and nothing else:
// - working files against the index: a file whose stat data (type, executable bit, size, mtime,
//   ctime, inode, device, owner) is what Git recorded is unchanged; one racily clean (modified no
//   earlier than the index was written, index-file.ts's rule, so its stat data proves nothing) is
//   read and hashed as a blob, and must be the blob the index holds, byte for byte;
// - the index against HEAD: the cache-tree's root is valid only while it is the tree of the entries,
//   and Git skips the comparison of a subtree whose cache-tree matches.
// Every other case is a doubt that answers null, and the caller asks `git status`: an index this
// parser cannot vouch for (index-file.ts), a flagged, unmerged or intent-to-add entry, a submodule,
// any name on disk the index does not hold (an untracked or ignored file, an empty directory, a
// nested repository), an entry missing or changed on disk, too many entries, a detached HEAD. The
// caller still compares the tree with HEAD's (`for-each-ref`'s %(tree)) before it trusts the proof.
// Only a survey's report and plan use it: the recheck before each removal asks Git (survey.ts,
// `trustStat`).

import { hash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { readFileFdBytes } from '../state/engine/bounded-read.js';
import { INDEX_MAX_BYTES, type IndexContents, type IndexEntry, parseIndex } from './index-file.js';

/** Past this many entries the walk is no cheaper than git's own (threaded) status: ask Git. */
export const STAT_CLEAN_MAX_ENTRIES = 5_000;
/** Racily clean files read and hashed at most, and their largest size: past either, ask Git. */
const MAX_HASHED = 200;
const MAX_HASHED_BYTES = 1 << 20;

export interface StatProof {
  /** The branch HEAD names (`refs/heads/x`). */
  ref: string;
  /** The tree the index holds, which must be the tree of the branch's tip. */
  tree: string;
}

const FILE_TYPE = 0o170000;
const REGULAR = 0o100000;
const SYMLINK = 0o120000;

/**
 * The proof that the checkout at `root` (its git dir `gitDir`) has nothing `git status` would list,
 * if its branch's tip has the proof's tree; null for any doubt. Synchronous: a few small reads and a
 * stat per entry, each far cheaper than an asynchronous call's thread-pool round trip, and bounded.
 * Nothing is opened that could block (a FIFO), and no link is followed.
 */
export function statClean(root: string, gitDir: string): StatProof | null {
  try {
    const head = readRegular(join(gitDir, 'HEAD'), 4096);
    const ref = head && /^ref: (refs\/heads\/[^\n]+)\n?$/.exec(head.data.toString('utf8'))?.[1];
    if (!ref) return null;
    const index = readIndex(join(gitDir, 'index'));
    if (index === null) return null;
    const { entries, tree, mtime } = index;
    const blob = { data: index.data, hashBytes: index.hashBytes };
    if (tree === null || tree.entries !== entries.length || entries.length > STAT_CLEAN_MAX_ENTRIES) {
      return null;
    }
    const byPath = new Map<string, IndexEntry>();
    const dirs = new Set<string>();
    for (const entry of entries) {
      const type = entry.mode & FILE_TYPE;
      if (!entry.plain || (type !== REGULAR && type !== SYMLINK)) return null;
      // A name that is not UTF-8 cannot be matched with what readdir returns.
      if (entry.path.includes('\uFFFD')) return null;
      byPath.set(entry.path, entry);
      for (let slash = entry.path.indexOf('/'); slash !== -1; slash = entry.path.indexOf('/', slash + 1)) {
        dirs.add(entry.path.slice(0, slash));
      }
    }
    if (byPath.size !== entries.length) return null;
    let matched = 0;
    let hashed = 0;
    const walk = (dir: string, prefix: string): boolean => {
      // Joined by hand: path.join's normalising is most of a cold walk's cost per file, and a name
      // from readdir has no slash or dot-dot to normalise.
      const base = dir.endsWith('/') ? dir : `${dir}/`;
      for (const name of readdirSync(dir)) {
        const rel = prefix + name;
        // The worktree's own `.git` file (its identity was proven before this is asked).
        if (rel === '.git') continue;
        const path = base + name;
        const entry = byPath.get(rel);
        if (entry !== undefined) {
          const racy = entry.mtimeS > mtime.s || (entry.mtimeS === mtime.s && entry.mtimeNs >= mtime.ns);
          // A racily clean entry is proven by its bytes, whose read compares the stat data itself
          // (sameBlob): a second stat of the same file beforehand would prove nothing more.
          if (racy) {
            if (++hashed > MAX_HASHED || !sameBlob(entry, path, blob)) return false;
          } else if (!unchanged(entry, lstatSync(path))) {
            return false;
          }
          matched++;
        } else if (dirs.has(rel) && lstatSync(path).isDirectory()) {
          if (!walk(path, `${rel}/`)) return false;
        } else {
          return false;
        }
      }
      return true;
    };
    if (!walk(root, '') || matched !== entries.length) return null;
    return { ref, tree: tree.oid };
  } catch {
    return null;
  }
}

/**
 * Git's stat comparison (core.checkStat=default, trustctime and fileMode on). Times are compared as
 * Node reports them without BigInt (milliseconds as a double, `s * 1e3 + ns / 1e6`, Node's own
 * formula): exact to a fraction of a microsecond, finer than the seconds a Git built without
 * USE_NSEC compares. Number stats cost a third less than BigInt ones, for a stat per tracked file.
 */
function unchanged(entry: IndexEntry, info: Stats): boolean {
  const low = (value: number) => value % 2 ** 32;
  const type = entry.mode & FILE_TYPE;
  if (type === REGULAR) {
    if (!info.isFile()) return false;
    if (((entry.mode & 0o100) !== 0) !== ((info.mode & 0o100) !== 0)) return false;
  } else if (!info.isSymbolicLink()) {
    return false;
  }
  return (
    entry.size === low(info.size) &&
    info.mtimeMs === entry.mtimeS * 1e3 + entry.mtimeNs / 1e6 &&
    info.ctimeMs === entry.ctimeS * 1e3 + entry.ctimeNs / 1e6 &&
    entry.ino === low(info.ino) &&
    entry.dev === low(info.dev) &&
    entry.uid === low(info.uid) &&
    entry.gid === low(info.gid)
  );
}

/**
 * The working file (or link) has the entry's stat data and is the entry's blob, byte for byte.
 * `index`: the index's bytes, where the entry's object id lies. A link: its lstat, then its target.
 * A file: one open, fstat, read and close, the fstat of the descriptor read being the stat compared
 * (so the bytes hashed are the file whose stat data matched), its `blob <size>\0` header read in
 * front of it so one one-shot hash takes both. The open follows no link and cannot block: a link or
 * a socket in the file's place fails it (a doubt), and a FIFO or a directory fails the fstat's
 * comparison before anything is read.
 */
function sameBlob(
  entry: IndexEntry,
  path: string,
  index: Pick<IndexContents, 'data' | 'hashBytes'>,
): boolean {
  let object: Buffer;
  if ((entry.mode & FILE_TYPE) === SYMLINK) {
    if (!unchanged(entry, lstatSync(path))) return false;
    const target = readlinkSync(path, { encoding: 'buffer' });
    object = Buffer.concat([Buffer.from(`blob ${target.length}\0`, 'latin1'), target]);
  } else {
    const read = readBlob(entry, path);
    if (read === null) return false;
    object = read;
  }
  const oid = hash(index.hashBytes === 32 ? 'sha256' : 'sha1', object, 'buffer');
  return index.data.compare(oid, 0, index.hashBytes, entry.oidAt, entry.oidAt + index.hashBytes) === 0;
}

/**
 * A regular file's object (`blob <size>\0` and its bytes), opened so that a FIFO in its place cannot
 * block, and only while its fstat still matches the entry; null otherwise, or past the size hashed.
 */
function readBlob(entry: IndexEntry, path: string): Buffer | null {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const info = fstatSync(fd);
    if (!unchanged(entry, info) || info.size > MAX_HASHED_BYTES) return null;
    const header = `blob ${info.size}\0`;
    // One byte spare: a read that fills it means the file grew since the fstat.
    const object = Buffer.allocUnsafe(header.length + info.size + 1);
    let length = object.write(header, 'latin1');
    for (;;) {
      const wanted = object.length - length;
      const read = wanted === 0 ? 0 : readSync(fd, object, length, wanted, null);
      if (read === 0) break;
      length += read;
      // A regular file that gave all its fstat said and ran short of the spare byte is at its end.
      if (length === object.length - 1 && read < wanted) break;
    }
    return length === object.length - 1 ? object.subarray(0, length) : null;
  } finally {
    closeSync(fd);
  }
}

function readIndex(path: string): (IndexContents & { mtime: { s: number; ns: number } }) | null {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    // The index's own time to the nanosecond, as index-file.ts reads it for its racy rule.
    const info = fstatSync(fd, { bigint: true });
    if (!info.isFile()) return null;
    if (info.size > BigInt(INDEX_MAX_BYTES)) return null;
    const data = readFileFdBytes(fd, Number(info.size), INDEX_MAX_BYTES);
    if (BigInt(data.length) !== info.size) return null;
    const mtime = { s: Number(info.mtimeNs / 1_000_000_000n), ns: Number(info.mtimeNs % 1_000_000_000n) };
    const contents = parseIndex(data, mtime, true);
    return contents && { ...contents, mtime };
  } finally {
    closeSync(fd);
  }
}

/** A regular file's bytes and stat data, opened so that a FIFO in its place cannot block. */
function readRegular(path: string, limit: number): { data: Buffer; info: Stats } | null {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > limit) return null;
    const data = readFileFdBytes(fd, info.size, limit);
    // A file that changed size while it was read is being written: doubt.
    return data.length === info.size ? { data, info } : null;
  } finally {
    closeSync(fd);
  }
}
