// A running `serve` keeps the records of state files that have not changed (read-memo.ts) and
// reads a file again whenever the one at its path is another or was changed: replaced by rename
// with the same size and mtime, rewritten in place with the same size and mtime, swapped for a
// FIFO or a directory, made unreadable. Each change shows in the next snapshots.

import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, open, readFile, rename, rm, rmdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HostSnapshot } from '../../../service/core/placement/host-types.js';
import { ensureStateDir } from '../../../service/state/paths.js';
import { HostSnapshotSchema } from '../../../service/state/schemas/host-schemas.js';
import { type Sandbox, startCli } from '../../helpers/cli.js';
import { readableCli } from '../../helpers/readable-copy.js';
import { sandboxPerTest } from '../../helpers/serve-sandbox.js';
import { waitFor } from '../../helpers/wait.js';
import { roomFor5 } from '../jobs/job-queue-fixtures.js';

let box: Sandbox;
const served = sandboxPerTest((made) => {
  box = made;
});
const { running } = served;

async function snapshot(): Promise<HostSnapshot | undefined> {
  try {
    return HostSnapshotSchema.parse(JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8')));
  } catch {
    return undefined; // not written yet
  }
}

/** Waits for a snapshot sampled after `after` (wall ms) that satisfies `check`. */
async function published(after: number, check: (s: HostSnapshot) => boolean, what: string) {
  return waitFor(
    what,
    async () => {
      const s = await snapshot();
      return s !== undefined && s.sample_ms > after && check(s) ? s : undefined;
    },
    { timeoutMs: 20_000 },
  );
}

const placements = () => join(box.state, 'placements.json');
const mentions = (s: HostSnapshot) => s.errors.some((e) => e.includes(placements()));
const counting = (n: number) => (s: HostSnapshot) => s.headroom.reservations === n && !mentions(s);

/** placements.json's text with `n` live reservations, padded with spaces to `size` bytes. */
function placementsText(n: number, size: number): string {
  const far = Date.now() + 3_600_000;
  const reservations = Array.from({ length: n }, (_, i) => ({
    id: `r_memo${i}`,
    created_ms: 1,
    expires_ms: far,
    owner: null,
  }));
  const text = JSON.stringify({ version: 1, reservations });
  if (text.length + 1 > size) throw new Error(`placements text of ${n} is over ${size} bytes`);
  return `${text}${' '.repeat(size - text.length - 1)}\n`;
}

const SIZE = 400;
/** Every version of the file gets this mtime, to the second and below. */
const MTIME = new Date('2026-01-01T00:00:00.000Z');

/** Written beside it and renamed over it, mtime set first: a new inode, same size, same mtime. */
async function replaceByRename(text: string): Promise<void> {
  const temp = `${placements()}.next`;
  await writeFile(temp, text);
  await utimes(temp, MTIME, MTIME);
  await rename(temp, placements());
}

/** Waits until the record read from the file now at the path is old enough to have been kept. */
async function settledAndCounted(n: number): Promise<HostSnapshot> {
  const after = Date.now() + 1_500;
  return published(after, counting(n), `${n} reservations read from a settled file`);
}

async function serving() {
  const room = await roomFor5(box, 90_000, { facts: false });
  served.stopTicker = room.stop;
  await ensureStateDir(box.state);
  return room.env;
}

describe('serve reads a state file again whenever it changed', () => {
  it('replaced by rename or rewritten in place with the same size and mtime; a FIFO; a directory', async () => {
    const env = await serving();
    await replaceByRename(placementsText(1, SIZE));
    const child = startCli(['serve', '--interval', '0.3'], env);
    running.push(child);
    await settledAndCounted(1);

    // Another inode, the same size and mtime: the next ticks count its two reservations.
    await replaceByRename(placementsText(2, SIZE));
    await settledAndCounted(2);

    // The same inode rewritten in place, size and mtime put back: its ctime moved.
    const handle = await open(placements(), 'r+');
    await handle.write(placementsText(3, SIZE), 0);
    await handle.close();
    await utimes(placements(), MTIME, MTIME);
    const inPlace = await settledAndCounted(3);

    // A FIFO renamed over it: refused in one line, never blocks, publication goes on.
    execFileSync('mkfifo', [`${placements()}.fifo`]);
    await rename(`${placements()}.fifo`, placements());
    const fifo = await published(inPlace.sample_ms, mentions, 'the FIFO in errors');
    expect(fifo.errors.find((e) => e.includes(placements()))).toMatch(/it is a FIFO/);

    // A directory in its place.
    await rm(placements());
    await mkdir(placements());
    const dir = await published(
      fifo.sample_ms,
      (s) => s.errors.some((e) => /it is a directory/.test(e)),
      'dir',
    );
    expect(dir.errors.filter((e) => e.includes(placements()))).toHaveLength(1);

    // Fixed: the same text as before the FIFO, same size and mtime, counted again.
    await rmdir(placements());
    await replaceByRename(placementsText(3, SIZE));
    await published(dir.sample_ms, counting(3), 'recovery');
    expect(child.exitCode).toBeNull();
  });

  it('made unreadable after it was kept: the next ticks say so, and count it again once readable', async () => {
    const env = await serving();
    await replaceByRename(placementsText(2, SIZE));
    // Root reads any file whatever its mode: as root the service runs as `nobody` over a sandbox
    // it owns, and the file is then given to root with mode 0600; otherwise it is made mode 000.
    const root = process.getuid?.() === 0;
    const nobody = 65_534;
    let child: ReturnType<typeof startCli>;
    if (root) {
      const cli = await readableCli(join(box.root, 'cli'));
      execFileSync('chown', ['-R', `${nobody}:${nobody}`, box.root]);
      child = startCli(['serve', '--interval', '0.3'], env, undefined, { uid: nobody, gid: nobody, cli });
    } else {
      child = startCli(['serve', '--interval', '0.3'], env);
    }
    running.push(child);
    const kept = await settledAndCounted(2);
    if (root) {
      await chown(placements(), 0, 0);
      await chmod(placements(), 0o600);
    } else {
      await chmod(placements(), 0o000);
    }
    const denied = await published(kept.sample_ms, mentions, 'the refusal in errors');
    expect(denied.errors.find((e) => e.includes(placements()))).toContain('permission denied (EACCES)');
    if (root) await chown(placements(), nobody, nobody);
    else await chmod(placements(), 0o600);
    await published(denied.sample_ms, counting(2), 'recovery');
    expect(child.exitCode).toBeNull();
  });
});
