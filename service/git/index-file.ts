// The index entries `git status` does not look at, read straight from a checkout's index file so the
// common case (none) costs no git process: entries marked assume-unchanged or skip-worktree, and
// gitlinks (submodules). The parse is strict (header, every entry, every extension and the trailing
// checksum must line up); any doubt, a split or sparse index included, answers null and the caller
// asks `git ls-files` instead. Index format: git's Documentation/gitformat-index.txt (v2 to v4).

import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import { readFdBytes } from '../state/engine/bounded-read.js';

export interface IndexNote {
  path: string;
  /** Octal, as Git prints it: `100644`, `100755`, `120000`, `160000`. */
  mode: string;
  oid: string;
  assumeUnchanged: boolean;
  skipWorktree: boolean;
  /**
   * The working file's stat data as Git recorded it (seconds and nanoseconds), or null when unknown
   * (read through `git ls-files`, or racily clean: recorded no earlier than the index was written).
   */
  stat: {
    size: number;
    mtimeS: number;
    mtimeNs: number;
    ctimeS: number;
    ctimeNs: number;
    ino: number;
  } | null;
}

const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const STAGE = 0x3000;
const SKIP_WORKTREE = 0x4000;
const GITLINK = 0o160000;
const DIRECTORY = 0o040000;
/** Extensions that change what the entries mean: the shared index of a split index, a sparse index. */
const DOUBTFUL_EXTENSIONS = new Set(['link', 'sdir']);
const STAT_BYTES = 40;
/** Far past any real index (100,000 files take about 10 MiB); a larger file is not read. */
export const INDEX_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Every entry of an index file with the stat data Git recorded for it, and the cache-tree's root:
 * what stat-clean.ts needs to prove a checkout clean without `git status`.
 */
export interface IndexEntry {
  path: string;
  /** The mode as a number (`0o100644`…). */
  mode: number;
  /**
   * Where its object id lies in the index's bytes (`IndexContents.data`, `hashBytes` long): only a
   * racily clean entry's is ever compared, so none is turned into text.
   */
  oidAt: number;
  /** Stage 0 and no flag that keeps `git status` from comparing it (assume-unchanged, skip-worktree, intent-to-add). */
  plain: boolean;
  ctimeS: number;
  ctimeNs: number;
  mtimeS: number;
  mtimeNs: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  size: number;
}

export interface IndexContents {
  notes: IndexNote[];
  /** Every entry, when asked for. */
  entries: IndexEntry[];
  /**
   * The cache-tree's root (extension TREE), when it is valid: the tree the whole index would be
   * written as, and how many entries it covers. Git keeps it only while it matches the entries.
   */
  tree: { oid: string; entries: number } | null;
  /** The index's bytes, which `IndexEntry.oidAt` points into. */
  data: Buffer;
  /** The length of an object id: 20 (SHA-1) or 32 (SHA-256). */
  hashBytes: number;
}

/**
 * The notable entries of an index file, or null when this parser cannot vouch for them. `indexMtime`
 * (the file's own mtime, seconds and nanoseconds) marks racily clean entries, whose stat data says
 * nothing.
 */
export function parseIndexNotes(data: Buffer, indexMtime: { s: number; ns: number }): IndexNote[] | null {
  return parseIndex(data, indexMtime, false)?.notes ?? null;
}

/** The index's notes, and with `all` every entry and the cache-tree's root; null for any doubt. */
export function parseIndex(
  data: Buffer,
  indexMtime: { s: number; ns: number },
  all: boolean,
): IndexContents | null {
  for (const hashBytes of [20, 32]) {
    const contents = parseWith(data, hashBytes, indexMtime, all);
    if (contents !== null) return contents;
  }
  return null;
}

function parseWith(
  data: Buffer,
  hashBytes: number,
  indexMtime: { s: number; ns: number },
  all: boolean,
): IndexContents | null {
  if (data.length < 12 + hashBytes || data.toString('latin1', 0, 4) !== 'DIRC') return null;
  // Words through a DataView, one builtin call each: Buffer's readUInt32BE is JavaScript that a
  // short-lived process runs cold, thousands of instructions an entry for a few thousand entries.
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const version = view.getUint32(4);
  if (version < 2 || version > 4) return null;
  const count = view.getUint32(8);
  const end = data.length - hashBytes;
  const notes: IndexNote[] = [];
  const entries: IndexEntry[] = [];
  let tree: IndexContents['tree'] = null;
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  const fixed = STAT_BYTES + hashBytes + 2;
  for (let n = 0; n < count; n++) {
    const start = at;
    if (at + fixed > end) return null;
    const mode = view.getUint32(at + 24);
    const flags = view.getUint16(at + STAT_BYTES + hashBytes);
    at += fixed;
    let extended = 0;
    if (flags & EXTENDED) {
      if (version < 3 || at + 2 > end) return null;
      extended = view.getUint16(at);
      at += 2;
    }
    // The path: its bytes (v4 builds them from the previous path's) or, before v4, where they lie.
    let path: Buffer | null = null;
    let pathStart = at;
    let pathEnd: number;
    if (version === 4) {
      const strip = readVarint(data, at, end);
      if (strip === null || strip.value > previous.length) return null;
      at = strip.next;
      const nul = data.indexOf(0, at);
      if (nul === -1 || nul >= end) return null;
      path = Buffer.concat([previous.subarray(0, previous.length - strip.value), data.subarray(at, nul)]);
      pathStart = 0;
      pathEnd = path.length;
      at = nul + 1;
    } else {
      const nul = data.indexOf(0, at);
      if (nul === -1 || nul >= end) return null;
      pathEnd = nul;
      // Padded with 1 to 8 NULs so the entry's length is a multiple of eight.
      const next = start + ((nul - start + 8) & ~7);
      if (next > end) return null;
      for (let pad = nul; pad < next; pad++) if (data[pad] !== 0) return null;
      at = next;
    }
    const pathLength = pathEnd - pathStart;
    const nameLength = flags & 0x0fff;
    if (pathLength === 0 || (nameLength !== 0x0fff && nameLength !== pathLength)) return null;
    if (path !== null) previous = path;
    // A sparse directory entry stands for a whole tree: only an expanded listing can say what is in it.
    if ((mode & 0o170000) === DIRECTORY) return null;
    const assumeUnchanged = (flags & ASSUME_VALID) !== 0;
    const skipWorktree = (extended & SKIP_WORKTREE) !== 0;
    const gitlink = (mode & 0o170000) === GITLINK;
    const name = (): string =>
      path === null ? data.toString('utf8', pathStart, pathEnd) : path.toString('utf8');
    if (all) {
      entries.push({
        path: name(),
        mode,
        oidAt: start + STAT_BYTES,
        plain: !assumeUnchanged && extended === 0 && (flags & STAGE) === 0,
        ctimeS: view.getUint32(start),
        ctimeNs: view.getUint32(start + 4),
        mtimeS: view.getUint32(start + 8),
        mtimeNs: view.getUint32(start + 12),
        dev: view.getUint32(start + 16),
        ino: view.getUint32(start + 20),
        uid: view.getUint32(start + 28),
        gid: view.getUint32(start + 32),
        size: view.getUint32(start + 36),
      });
    }
    if (!(assumeUnchanged || skipWorktree || gitlink) || (flags & STAGE) !== 0) continue;
    const word = (offset: number) => view.getUint32(start + offset);
    const stat = {
      ctimeS: word(0),
      ctimeNs: word(4),
      mtimeS: word(8),
      mtimeNs: word(12),
      ino: word(20),
      size: word(36),
    };
    const racy =
      stat.mtimeS > indexMtime.s || (stat.mtimeS === indexMtime.s && stat.mtimeNs >= indexMtime.ns);
    notes.push({
      path: name(),
      mode: mode.toString(8).padStart(6, '0'),
      oid: data.toString('hex', start + STAT_BYTES, start + STAT_BYTES + hashBytes),
      assumeUnchanged,
      skipWorktree,
      stat: racy ? null : stat,
    });
  }
  // Extensions: a four-byte signature and a 32-bit size each, ending exactly at the checksum.
  while (at < end) {
    if (at + 8 > end) return null;
    const signature = data.toString('latin1', at, at + 4);
    const size = view.getUint32(at + 4);
    if (DOUBTFUL_EXTENSIONS.has(signature)) return null;
    if (at + 8 + size > end) return null;
    if (all && signature === 'TREE') tree = treeRoot(data.subarray(at + 8, at + 8 + size), hashBytes);
    at += 8 + size;
  }
  if (at !== end) return null;
  const trailer = data.subarray(end);
  // index.skipHash writes a null checksum; otherwise it must match, so a torn read never passes.
  if (trailer.some((byte) => byte !== 0)) {
    const digest = createHash(hashBytes === 20 ? 'sha1' : 'sha256')
      .update(data.subarray(0, end))
      .digest();
    if (!digest.equals(trailer)) return null;
  }
  return { notes, entries, tree, data, hashBytes };
}

/**
 * The first record of a TREE extension, which is the root's: an empty path, NUL, the number of
 * entries it covers (-1 when invalidated), a space, its subtree count, a newline, then its object
 * id when valid. Anything else is no root.
 */
function treeRoot(ext: Buffer, hashBytes: number): IndexContents['tree'] {
  if (ext[0] !== 0) return null;
  const newline = ext.indexOf(0x0a, 1);
  if (newline === -1) return null;
  const match = /^(-?\d+) (\d+)$/.exec(ext.toString('latin1', 1, newline));
  if (!match) return null;
  const entries = Number(match[1]);
  if (entries < 0 || newline + 1 + hashBytes > ext.length) return null;
  return { oid: ext.toString('hex', newline + 1, newline + 1 + hashBytes), entries };
}

/** Git's offset varint (index v4 path compression). */
function readVarint(data: Buffer, at: number, end: number): { value: number; next: number } | null {
  let byte = data[at];
  if (byte === undefined || at >= end) return null;
  let value = byte & 127;
  let next = at + 1;
  while (byte & 128) {
    byte = data[next];
    if (byte === undefined || next >= end || value > 2 ** 40) return null;
    value = (value + 1) * 128 + (byte & 127);
    next++;
  }
  return { value, next };
}

/**
 * Notes by index file, kept while the file is the same one: Git replaces an index by renaming a new
 * file over it, so its inode, size and times tell a rewrite. Saves the service re-reading (and
 * re-hashing) a large index every time it refreshes a pane's dirty mark.
 */
const remembered = new Map<string, { key: string; notes: IndexNote[] | null }>();
const REMEMBER_AT_MOST = 64;

/** Reads `<gitDir>/index`; an absent index has no entries, an unreadable one is doubt (null). */
export async function readIndexNotes(gitDir: string): Promise<IndexNote[] | null> {
  const file = join(gitDir, 'index');
  try {
    // Never open something that could block (a FIFO in place of the index).
    if (!(await lstat(file)).isFile()) return null;
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat({ bigint: true });
      if (!info.isFile()) return null;
      const key = `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
      const known = remembered.get(file);
      if (known?.key === key) return known.notes;
      // An index past the cap is doubt (null): the caller asks Git.
      const data = readFdBytes(handle.fd, INDEX_MAX_BYTES);
      const mtime = { s: Number(info.mtimeNs / 1_000_000_000n), ns: Number(info.mtimeNs % 1_000_000_000n) };
      const notes = parseIndexNotes(data, mtime);
      if (remembered.size >= REMEMBER_AT_MOST) remembered.clear();
      remembered.set(file, { key, notes });
      return notes;
    } finally {
      await handle.close();
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? [] : null;
  }
}

/** Parses `git ls-files -v -s -z` (`<tag> <mode> <oid> <stage>\t<path>`) into the same notes. */
export function parseLsFiles(text: string): IndexNote[] {
  const notes: IndexNote[] = [];
  for (const record of text.split('\0')) {
    const match = /^(\S) (\d{6}) ([0-9a-f]+) (\d)\t(.+)$/s.exec(record);
    if (!match) continue;
    const [, tag = '', mode = '', oid = '', stage = '', path = ''] = match;
    // Lower case: assume-unchanged; S: skip-worktree (s: both).
    const assumeUnchanged = tag !== tag.toUpperCase();
    const skipWorktree = tag.toUpperCase() === 'S';
    if (stage !== '0' || !(assumeUnchanged || skipWorktree || mode === '160000')) continue;
    notes.push({ path, mode, oid, assumeUnchanged, skipWorktree, stat: null });
  }
  return notes;
}
