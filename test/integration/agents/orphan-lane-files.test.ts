// The orphan check on a real state dir, without a service: hostile done.json and items.json (a
// directory, a FIFO, corrupt) cost one line and never hang it, no Herdr means no verdict and no
// write, and a pane id that another terminal now carries is never taken for the child's.

import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Item } from '../../../service/core/agents/item-types.js';
import { OrphanLane } from '../../../service/daemon/agents/orphans-pass.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import type { DoneMark } from '../../../service/state/records/done-marks.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { itemFixture } from '../../helpers/job-fixtures.js';

let box: Sandbox;
let herdr: FakeHerdr | undefined;
const T0 = 1_800_000_000_000;

beforeEach(async () => {
  box = await sandbox();
  await mkdir(box.state, { recursive: true, mode: 0o700 });
});

afterEach(async () => {
  await herdr?.stop();
  herdr = undefined;
  await box.cleanup();
});

function lane(env: NodeJS.ProcessEnv, warnings: string[] = []): OrphanLane {
  return new OrphanLane({
    paths: statePaths(box.state),
    now: () => T0,
    warn: (line: string) => warnings.push(line),
    config: structuredClone(DEFAULT_CONFIG),
    env: { PATH: process.env.PATH, ...env },
    home: box.home,
    pid: process.pid,
    started_ms: T0,
  });
}

function child(over: Partial<Item> = {}): Item {
  return itemFixture({
    id: 'i_child',
    kind: 'agent',
    pane: 'w1:p1',
    terminal_id: 'term-child',
    owner: 'w404:p9',
    command: undefined,
    name: 'child',
    created_ms: T0 - 60_000,
    ...over,
  });
}

function mark(over: Partial<DoneMark> = {}): DoneMark {
  return {
    id: 'l_child',
    item: 'i_child',
    launch: 'l_child',
    pane: 'w1:p1',
    terminal_id: 'term-child',
    agent_session: null,
    seq: null,
    marked_ms: T0 - 1_000,
    state: 'marked',
    state_ms: T0 - 1_000,
    error: null,
    ...over,
  };
}

async function writeWork(items: Item[], marks: DoneMark[]): Promise<void> {
  await writeFile(join(box.state, 'items.json'), `${JSON.stringify({ version: 1, items })}\n`);
  await writeFile(join(box.state, 'done.json'), `${JSON.stringify({ version: 1, marks })}\n`);
}

describe('hostile files', () => {
  it.each([
    ['a directory', (path: string) => mkdir(path)],
    ['a FIFO', async (path: string) => execFileSync('mkfifo', [path])],
  ])('done.json that is %s: the check fails in one line naming it, and never hangs', async (_what, make) => {
    await writeFile(join(box.state, 'items.json'), `${JSON.stringify({ version: 1, items: [child()] })}\n`);
    await make(join(box.state, 'done.json'));
    const error = await lane({})
      .pass()
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(error?.message).toMatch(/done\.json/);
    expect(error?.message).not.toContain('\n');
  });

  it('items.json that is a FIFO: one line naming it', async () => {
    execFileSync('mkfifo', [join(box.state, 'items.json')]);
    await expect(lane({}).pass()).rejects.toThrow(/items\.json/);
  });

  it('a corrupt done.json is moved aside and the check goes on with no marks', async () => {
    await writeFile(join(box.state, 'items.json'), `${JSON.stringify({ version: 1, items: [child()] })}\n`);
    await writeFile(join(box.state, 'done.json'), '{"version": 1, "marks": [{"id": ');
    const warnings: string[] = [];
    expect(await lane({}, warnings).pass()).toEqual({ results: [], skipped: [], failures: [], held: [] });
    expect((await readdir(box.state)).some((name) => name.startsWith('done.json.bad-'))).toBe(true);
  });
});

describe('without a verdict, nothing is written', () => {
  it('no Herdr: a child that called done is neither judged nor marked', async () => {
    await writeWork([child()], [mark()]);
    const before = await readFile(join(box.state, 'items.json'), 'utf8');
    const report = await lane({}).pass();
    expect(report).toEqual({ results: [], skipped: [], failures: [], held: [] });
    expect(await readFile(join(box.state, 'items.json'), 'utf8')).toBe(before);
    await expect(readFile(join(box.state, 'sweeps.jsonl'))).rejects.toThrow();
  });

  it("a pane id another terminal now carries is not the child's: nothing closes there", async () => {
    herdr = await startFakeHerdr({ dir: join(box.root, 'herdr'), env: { HOME: box.home } });
    const created = await herdr.call('workspace.create', { cwd: box.home });
    const pane = (created.result as { root_pane: { pane_id: string } }).root_pane.pane_id;
    // The child's terminal is gone; its old pane id is someone else's shell now.
    await writeWork(
      [child({ pane, terminal_id: 'term-long-gone' })],
      [mark({ pane, terminal_id: 'term-long-gone' })],
    );
    const env = { HERDR_SOCKET_PATH: herdr.socketPath, HERDR_ENV: '1' };
    const report = await lane(env).pass();
    expect(report).toEqual({ results: [], skipped: [], failures: [], held: [] });
    const panes = (await herdr.call('pane.list')).result as { panes: Array<{ pane_id: string }> };
    expect(panes.panes.map((p) => p.pane_id)).toContain(pane);
    const items = JSON.parse(await readFile(join(box.state, 'items.json'), 'utf8')).items;
    expect(items[0]).toMatchObject({ closed_ms: null });
    expect(items[0].orphaned ?? null).toBeNull();
  });
});
