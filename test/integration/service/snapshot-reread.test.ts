// host.json as the service's lanes read it back: the same file (inode, size, times) gives the value
// parsed before, shared and frozen; the text the publisher has just written is parsed from that text;
// any change, a missing file or a broken one is read as readState reads it.

import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rememberWritten, rereadHostSnapshot } from '../../../service/daemon/publish/snapshot-reread.js';
import { HostSnapshotCheck } from '../../../service/state/checks/host-snapshot-check.js';
import { writeState } from '../../../service/state/engine/store.js';
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

  it('gives the text the publisher wrote as the file holds it, and reads the file once another replaced it', async () => {
    const paths = statePaths(dir);
    const written = snapshotFixture({ sample_ms: 3_000 });
    // A pane title with escapes and quotes travels as the file holds it.
    written.probe.agent_panes = [
      { ...agentPaneFixture('w1:p1', 'working', 500), name: '\u001b[31mred\u001b[0m "q"' },
    ];
    const text = await writeState(paths.host, HostSnapshotCheck, written);
    rememberWritten(paths.host, text);
    const a = await rereadHostSnapshot(io());
    expect(a).toEqual(JSON.parse(await readFile(paths.host, 'utf8')));
    expect(Object.isFrozen(a?.probe.agent_panes?.[0])).toBe(true);
    expect(await rereadHostSnapshot(io())).toBe(a);

    // Another writer's file (a restored backup, say) is read, not the text remembered before it.
    const other = snapshotFixture({ sample_ms: 4_000 });
    await writeFile(join(dir, 'host.json.tmp'), JSON.stringify(other));
    await rename(join(dir, 'host.json.tmp'), paths.host);
    expect((await rereadHostSnapshot(io()))?.sample_ms).toBe(4_000);
  });

  it('remembers nothing for a host.json that is not a regular file: the reread refuses it as readState does', async () => {
    const paths = statePaths(dir);
    await mkdir(paths.host);
    rememberWritten(paths.host, JSON.stringify(snapshotFixture({ sample_ms: 5_000 })));
    await expect(rereadHostSnapshot(io())).rejects.toThrow(/not a regular file/);
  });
});
