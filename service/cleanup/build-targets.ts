// Finds and removes build-output targets (rule in core/target-rule.ts): directories directly under
// a checkout with a CACHEDIR.TAG that starts with the signature. Symlinks are never followed, and a
// removal rechecks the tag and that the path is still a real directory right before `rm -r`.

import { constants, type Dirent } from 'node:fs';
import { lstat, open, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CACHEDIR_SIGNATURE, hasCachedirSignature, type Target } from '../core/cleanup/target-rule.js';
import { messageOf } from '../core/common/errors.js';
import { treeSize, type WalkLimits } from './disk-findings.js';

export const CACHEDIR_TAG = 'CACHEDIR.TAG';

export interface Checkout {
  path: string;
  /** Both kinds hold targets alike; the kind travels with the caller's survey. */
  kind: 'main' | 'linked';
}

export type TargetRemoval =
  | { kind: 'removed'; path: string; bytes: number }
  /** Nothing is there any more: something else removed it. */
  | { kind: 'gone'; path: string }
  /** No longer a target (tag changed or gone, replaced by a symlink or a file): left alone. */
  | { kind: 'skipped'; path: string; reason: string }
  /** The check or the removal itself failed. */
  | { kind: 'failed'; path: string; reason: string };

/**
 * The targets directly under each checkout, with their sizes. A checkout that cannot be read has
 * none; a directory that is itself one of the checkouts (a nested linked worktree) is never one.
 */
export async function findTargets(checkouts: readonly Checkout[], limits?: WalkLimits): Promise<Target[]> {
  const checkoutPaths = new Set(checkouts.map((checkout) => resolve(checkout.path)));
  const targets: Target[] = [];
  // Every checkout's listing is asked at once (each a trip through the thread pool, which lists
  // them side by side while this thread takes the answers in); they are judged in order below.
  const listings = [...checkoutPaths].map((path) => ({
    path,
    read: readdir(path, { withFileTypes: true }).catch(() => null),
  }));
  for (const { path, read } of listings) {
    const entries: Dirent[] | null = await read;
    if (entries === null) continue;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      // A Dirent of a symlink is never a directory, so links to elsewhere are skipped here.
      if (!entry.isDirectory() || entry.name === '.git') continue;
      const dir = join(path, entry.name);
      if (checkoutPaths.has(dir)) continue;
      // A tag we cannot read does not prove build output: not a target.
      if ((await tagState(dir).catch(() => 'unreadable')) !== 'tagged') continue;
      const size = (await treeSize(dir, limits)) ?? { bytes: 0, partial: false };
      targets.push({ path: dir, checkout: path, bytes: size.bytes, partial: size.partial });
    }
  }
  return targets;
}

/** Removes `target` after checking again that it is a real directory with a valid tag. */
export async function removeTarget(target: Pick<Target, 'path' | 'bytes'>): Promise<TargetRemoval> {
  const { path } = target;
  try {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) return { kind: 'skipped', path, reason: 'now a symlink' };
    if (!stats.isDirectory()) return { kind: 'skipped', path, reason: 'no longer a directory' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'gone', path };
    return { kind: 'failed', path, reason: `cannot check: ${messageOf(error)}` };
  }
  let tag: TagState;
  try {
    tag = await tagState(path);
  } catch (error) {
    return { kind: 'failed', path, reason: `cannot read ${CACHEDIR_TAG}: ${messageOf(error)}` };
  }
  if (tag === 'missing') return { kind: 'skipped', path, reason: `${CACHEDIR_TAG} is gone` };
  if (tag === 'not-a-file') return { kind: 'skipped', path, reason: `${CACHEDIR_TAG} is not a file` };
  if (tag === 'unsigned') {
    return { kind: 'skipped', path, reason: `${CACHEDIR_TAG} no longer starts with the signature` };
  }
  try {
    // fs.rm unlinks symlinks inside the tree rather than following them.
    await rm(path, { recursive: true });
  } catch (error) {
    return { kind: 'failed', path, reason: `rm -r: ${messageOf(error)}` };
  }
  return { kind: 'removed', path, bytes: target.bytes };
}

type TagState = 'tagged' | 'missing' | 'not-a-file' | 'unsigned';

/** Reads only as many bytes as the signature has; a tag that is a symlink does not count. */
async function tagState(dir: string): Promise<TagState> {
  const file = join(dir, CACHEDIR_TAG);
  try {
    const stats = await lstat(file);
    if (!stats.isFile()) return 'not-a-file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw error;
  }
  // O_NOFOLLOW: a tag swapped for a symlink since the lstat fails instead of being read.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(CACHEDIR_SIGNATURE.length);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return hasCachedirSignature(buffer.subarray(0, bytesRead).toString('latin1')) ? 'tagged' : 'unsigned';
  } finally {
    await handle.close();
  }
}
