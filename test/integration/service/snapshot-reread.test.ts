// host.json as the service's lanes read it back: the same file (inode, size, times) gives the value
// parsed before, shared and frozen; any change, a missing file or a broken one is read as readState
// reads it.

import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rereadHostSnapshot } from '../../../service/daemon/publish/snapshot-reread.js';
import { statePaths } from '../../../service/state/paths.js';
import { agentPaneFixture, snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('dogsled-reread-');
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const io = () => ({ paths: statePaths(dir), now: () => Date.now(), warn: () => {} });

describe('rereading host.json', () => {
  it('hands out the value it parsed while the file is the same, frozen, and reads a replaced one', async () => {
    const first = snapshotFixture({ sample_ms: 1_000 });
    first.probe.agent_panes = [agentPaneFixture('w1:p1', 'idle', 500)];
    await writeSnapshot(dir, first);
    const a = await rereadHostSnapshot(io());
    const b = await rereadHostSnapshot(io());
    expect(a?.sample_ms).toBe(1_000);
    expect(b).toBe(a);
    expect(Object.isFrozen(a?.probe.agent_panes?.[0])).toBe(true);

    // Replaced atomically, as the service writes it.
    const second = snapshotFixture({ sample_ms: 2_000 });
    await writeFile(join(dir, 'host.json.tmp'), JSON.stringify(second));
    await rename(join(dir, 'host.json.tmp'), join(dir, 'host.json'));
    const c = await rereadHostSnapshot(io());
    expect(c?.sample_ms).toBe(2_000);
    expect(c?.probe.agent_panes ?? []).toEqual([]);
    expect(await rereadHostSnapshot(io())).toBe(c);
  });

  it('reads a missing file as none and a broken one as readState does, every time', async () => {
    expect(await rereadHostSnapshot(io())).toBeUndefined();
    await writeSnapshot(dir, snapshotFixture({ sample_ms: 1_000 }));
    expect((await rereadHostSnapshot(io()))?.sample_ms).toBe(1_000);
    await writeFile(join(dir, 'host.json'), '{"version": 1, "broken"');
    expect(await rereadHostSnapshot(io())).toBeUndefined();
    // readState moved the broken file aside, as it always has.
    expect((await readdir(dir)).some((name) => name.startsWith('host.json.bad-'))).toBe(true);
  });
});
