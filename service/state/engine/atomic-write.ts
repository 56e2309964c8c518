// Atomic replacement of a state file: a temp file in the same directory, fsync, then rename, so a
// reader sees the previous version or the new one, never part of either. A `guard` runs right before
// the rename: a writer whose lock was lost (taken over while it was frozen) writes nothing. Temp
// names carry the writer's pid and start time, so an orphan left by a kill is recognised (tempOwner)
// and removed by the service's sweep. It is the project's one atomic writer (state files, launch
// files, the worktree anchor).

import { constants } from 'node:fs';
import { type FileHandle, open, rename, unlink, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fsFailure } from './fs-errors.js';
import { type ProcessIdentity, selfIdentity } from './liveness.js';
import { randomBytes } from './random.js';

/** The new text whole, or in pieces (a rewrite of a log too large to hold at once). */
export type AtomicData = string | Uint8Array | AsyncIterable<string | Uint8Array>;

export interface AtomicWriteOptions {
  mode: number;
  /** Throws to abandon the write; runs after the data is on disk and before it replaces the file. */
  guard?: () => Promise<void>;
}

/** `placements.json.tmp-4242-98812-9f2c1a`: target, writer pid, writer start ticks (x: unknown). */
const TEMP = /^(.+)\.tmp-(\d+)-(\d+|x)-[0-9a-f]+$/;

export async function writeAtomic(
  file: string,
  data: AtomicData,
  options: AtomicWriteOptions,
): Promise<void> {
  await (await stageAtomic(file, data, options)).commit();
}

/** A temp file written and synced, waiting for its rename: commit replaces the file, abandon drops it. */
export interface StagedWrite {
  commit: () => Promise<void>;
  abandon: () => Promise<void>;
}

/**
 * The first half of writeAtomic: the data on disk in its temp file. Two files written together (a
 * state file and its backup) sync at once and are then renamed in the order their caller needs.
 */
export async function stageAtomic(
  file: string,
  data: AtomicData,
  options: AtomicWriteOptions,
): Promise<StagedWrite> {
  const me = selfIdentity();
  const temp = `${file}.tmp-${me.pid}-${me.start ?? 'x'}-${randomBytes(4).toString('hex')}`;
  const abandon = () => unlink(temp).catch(() => undefined);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, options.mode);
    // The creation mode is filtered by the umask; state files are always exactly `mode`.
    await handle.chmod(options.mode);
    await writeFile(handle, data);
    await handle.sync();
    await handle.close();
    handle = undefined;
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await abandon();
    throw fsFailure('write', file, error);
  }
  const commit = async () => {
    try {
      await options.guard?.();
      await rename(temp, file);
    } catch (error) {
      await abandon();
      throw fsFailure('write', file, error);
    }
  };
  return { commit, abandon };
}

/** The file a temp name belongs to and who was writing it; undefined for any other name. */
export function tempOwner(
  name: string,
  hostname: string,
): { target: string; writer: ProcessIdentity } | undefined {
  const match = TEMP.exec(basename(name));
  if (!match) return undefined;
  const [, target, pid, start] = match as unknown as [string, string, string, string];
  return {
    target,
    writer: { pid: Number(pid), start: start === 'x' ? null : Number(start), hostname },
  };
}
