// A full disk under the state directory (a small tmpfs, filled up): `serve` keeps running with the
// last good files, says why once, and recovers by itself when room returns; `place` and `run` fail
// with one line and exit 2, never "internal error". Needs root to mount; skipped otherwise. Also the
// service's sweep of temp files that killed writers left behind.

import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostSnapshot } from '../../../service/core/placement/host-types.js';
import { selfIdentity } from '../../../service/state/engine/liveness.js';
import { HostSnapshotSchema } from '../../../service/state/schemas/host-schemas.js';
import { runCli, type Sandbox } from '../../helpers/cli.js';
import { sandboxPerTest } from '../../helpers/serve-sandbox.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { roomFor5, startServe } from '../jobs/job-queue-fixtures.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot)
  process.stderr.write('daemon-full-disk: skipping the full-disk tests: mounting a tmpfs needs root\n');

let box: Sandbox;
const served = sandboxPerTest((made) => {
  box = made;
});
const { running } = served;

async function snapshotIn(state: string): Promise<HostSnapshot> {
  return HostSnapshotSchema.parse(JSON.parse(await readFile(join(state, 'host.json'), 'utf8')));
}

describe.skipIf(!isRoot)('a full disk under the state directory', () => {
  let mount: string;

  beforeAll(async () => {
    mount = await tempDir('dogsled-full-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', mount]);
  });

  afterAll(async () => {
    spawnSync('umount', ['-l', mount]);
    await rm(mount, { recursive: true, force: true });
  });

  /** Writes zeros until the filesystem refuses: ENOSPC. */
  function fill(path: string): void {
    const fd = openSync(path, 'w');
    const chunk = Buffer.alloc(64 * 1024);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      closeSync(fd);
    }
  }

  it('serve keeps the last good files, keeps trying, and recovers; place and run fail in one line', async () => {
    const state = join(mount, 'state');
    // A second try starts from an empty mount, not the first try's state and filler.
    await rm(state, { recursive: true, force: true });
    await rm(join(mount, 'filler'), { force: true });
    const room = await roomFor5(box, 90_000, { facts: false });
    served.stopTicker = room.stop;
    const env = { ...room.env, DOGSLED_STATE: state };
    const child = startServe(env, running);
    const good = await waitFor(
      'an eligible snapshot',
      async () => {
        const s = await snapshotIn(state);
        return s.headroom.eligible ? s : undefined;
      },
      { timeoutMs: 15_000 },
    );
    const filler = join(mount, 'filler');
    fill(filler);
    await waitFor(
      'the service to report the full disk',
      async () => (child.output().includes('no space left on device (ENOSPC)') ? true : undefined),
      { timeoutMs: 15_000 },
    );
    // The last complete snapshot stays readable; the service is still running and still up.
    expect((await snapshotIn(state)).sample_ms).toBeGreaterThanOrEqual(good.sample_ms);
    expect(child.exitCode).toBeNull();
    for (const args of [
      ['place', '--json'],
      ['run', '--', 'true'],
    ]) {
      const result = await runCli(args, env);
      expect(result.code).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^dogsled: .*no space left on device \(ENOSPC\)$/);
    }
    const status = await runCli(['status', '--json'], env);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).hosts[0].service).toBe('up');

    const stuck = await snapshotIn(state);
    await rm(filler);
    await waitFor(
      'the service to publish again',
      async () => ((await snapshotIn(state)).sample_ms > stuck.sample_ms ? true : undefined),
      { timeoutMs: 15_000 },
    );
    expect(child.output()).toContain('written again');
    // The failure was reported once, not once per tick.
    expect(
      child
        .output()
        .split('\n')
        .filter((l) => l.includes('cannot write') && l.includes('host.json')),
    ).toHaveLength(1);
    const placed = await runCli(['place', '--json'], env);
    expect(placed.code).toBe(0);
    expect(JSON.parse(placed.stdout).placed).toBe(true);
    // Nothing was left half-written: no temp file of ours or write-file-atomic's. The service goes on
    // writing host.json each tick, so a listing may catch that write's own temp file: one left
    // behind is still there a few ticks later, a live one is renamed within its write.
    const temps = async () => (await readdir(state)).filter((n) => /\.tmp-|\.json\.\d+$/.test(n));
    await waitFor(
      'no temp file in the state dir',
      async () => ((await temps()).length === 0 ? true : undefined),
      {
        timeoutMs: 5_000,
      },
    ).catch(async () => expect(await temps()).toEqual([]));
    expect(child.exitCode).toBeNull();
  });
});

describe('orphaned temp files', () => {
  it('serve removes those of dead writers and old write-file-atomic ones, keeping live and fresh ones', async () => {
    const state = box.state;
    await mkdir(join(state, 'jobs'), { recursive: true });
    await mkdir(join(state, 'code-cache'), { recursive: true });
    const dead = spawnSync('true').pid;
    const me = selfIdentity();
    const orphans = [
      `placements.json.tmp-${dead}-123-0a1b2c3d`,
      `jobs/j_gone00000001.json.tmp-${dead}-x-0a1b2c3d`,
      `code-cache/status.bin.tmp-${dead}-123-0a1b2c3d`,
      'queue.json.4026531839',
    ];
    const kept = [
      // Its writer is alive (this test process): it may still rename it.
      `items.json.tmp-${me.pid}-${me.start ?? 'x'}-0a1b2c3d`,
      // A write-file-atomic temp file less than a minute old may still be in use.
      'placements.json.2863311530',
      // Quarantined copies are for a human to read.
      'queue.json.bad-1700000000000',
    ];
    for (const name of [...orphans, ...kept]) await writeFile(join(state, name), '{}');
    const old = new Date(Date.now() - 5 * 60_000);
    await utimes(join(state, 'queue.json.4026531839'), old, old);
    const room = await roomFor5(box, 90_000, { facts: false });
    served.stopTicker = room.stop;
    startServe(room.env, running);
    await waitFor('a snapshot', async () => (await snapshotIn(state)) ?? undefined, { timeoutMs: 15_000 });
    const left = [
      ...(await readdir(state)),
      ...(await readdir(join(state, 'jobs'))).map((n) => `jobs/${n}`),
      ...(await readdir(join(state, 'code-cache'))).map((n) => `code-cache/${n}`),
    ];
    for (const name of orphans) expect(left).not.toContain(name);
    for (const name of kept) expect(left).toContain(name);
  });
});
