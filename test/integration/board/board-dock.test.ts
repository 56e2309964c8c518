// `board --open` / `--toggle` against the fake Herdr: the CONTRACT §5.5 recipe (split the tab's
// leftmost pane right, swap the board left, set the split's ratio to 38 cells), reuse through the
// boards/<tab-hash>.json registry, a pane closed by hand, toggling, and the refusals.

import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DockResultSchema } from '../../../service/board/board-schema.js';
import { inspectLock } from '../../../service/state/engine/lock.js';
import { statePaths } from '../../../service/state/paths.js';
import { boardFile } from '../../../service/state/records/sidebar-files.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { ROOT, runCli, sandbox, spawnCli } from '../../helpers/cli.js';
import { lockUnrefreshedFor, stopInLock, stoppedItself } from '../../helpers/frozen-lock.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const VERSION = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version as string;

let dir: string;
let herdr: FakeHerdr;
let state: string;
let caller: string;
let left: string;
let tab: string;
let env: NodeJS.ProcessEnv;

// biome-ignore lint/suspicious/noExplicitAny: whole reply envelopes as plain JSON
async function ok(method: string, params: Record<string, unknown> = {}): Promise<any> {
  const reply = await herdr.call(method, params);
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

async function calls(): Promise<Array<{ method: string; params: Record<string, unknown> }>> {
  return (await ok('_fake.calls.list')).calls;
}

async function dock(...flags: string[]) {
  const result = await runCli(['board', ...flags, '--json'], env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return DockResultSchema.parse(JSON.parse(result.stdout));
}

async function registry() {
  return JSON.parse(await readFile(boardFile(statePaths(state), tab), 'utf8'));
}

beforeAll(async () => {
  dir = await tempDir('dogsled-dock-');
  const home = join(dir, 'home');
  state = join(dir, 'state');
  await mkdir(home, { recursive: true });
  herdr = await startFakeHerdr({ dir, env: { HOME: home } });
  // The real manifest, with a stand-in board command: these tests are about where the pane goes.
  const plugin = join(dir, 'plugin');
  await mkdir(join(plugin, 'bin'), { recursive: true });
  await copyFile(join(ROOT, 'herdr-plugin.toml'), join(plugin, 'herdr-plugin.toml'));
  await writeFile(join(plugin, 'bin', 'dogsled'), '#!/bin/sh\nexec sleep 600\n');
  await chmod(join(plugin, 'bin', 'dogsled'), 0o755);
  await ok('plugin.link', { path: plugin });
  const created = await ok('workspace.create', { cwd: dir });
  left = created.root_pane.pane_id;
  tab = created.tab.tab_id;
  // The caller is the right half of the tab: the board joins the leftmost pane's column, not the caller's.
  caller = (await ok('pane.split', { target_pane_id: left, direction: 'right' })).pane.pane_id;
  env = { ...herdr.env, HOME: home, DOGSLED_STATE: state, HERDR_PANE_ID: caller };
});

afterAll(async () => herdr?.stop());

beforeEach(async () => {
  await ok('_fake.calls.clear');
});

describe('board --open and --toggle', () => {
  let first: string;

  it('splits the leftmost pane, swaps the board to the left and gives it 38 cells of that split', async () => {
    const opened = await dock('--open');
    expect(opened).toMatchObject({ action: 'opened', tab, stale: null });
    first = opened.pane;
    const asked = (await calls()).filter((c) =>
      ['pane.layout', 'plugin.pane.open', 'pane.swap', 'layout.set_split_ratio'].includes(c.method),
    );
    expect(asked.map((c) => c.method)).toEqual([
      'pane.layout',
      'plugin.pane.open',
      'pane.swap',
      'layout.set_split_ratio',
    ]);
    expect(asked[1]?.params).toMatchObject({
      plugin_id: 'dogsled',
      entrypoint: 'sidebar',
      placement: 'split',
      direction: 'right',
      target_pane_id: left,
      focus: false,
      env: { DOGSLED_OWNER: caller },
    });
    expect(asked[2]?.params).toEqual({ pane_id: first, direction: 'left' });
    // The tab is 200 cells; the left half (100) was split, so 38 cells are 0.38 of it.
    expect(asked[3]?.params).toEqual({ pane_id: first, path: [false], ratio: 0.38 });
    expect(opened.ratio).toBe(0.38);
    const layout = (await ok('pane.layout', { pane_id: caller })).layout;
    const sorted = [...layout.panes].sort((a, b) => a.rect.x - b.rect.x);
    expect(sorted[0]).toMatchObject({ pane_id: first, rect: { x: 0, width: 38 } });
    expect(await registry()).toMatchObject({
      tab,
      pane: first,
      terminal_id: opened.terminal_id,
      owner: caller,
    });
  });

  it('reuses the board on a second open, without another split', async () => {
    const again = await dock('--open');
    expect(again).toMatchObject({ action: 'reused', pane: first });
    expect((await calls()).some((c) => c.method === 'plugin.pane.open')).toBe(false);
  });

  it('drops the entry of a board closed by hand and opens a new one', async () => {
    await ok('pane.close', { pane_id: first });
    const reopened = await dock('--open');
    expect(reopened).toMatchObject({ action: 'opened', stale: first });
    expect(reopened.pane).not.toBe(first);
    expect(await registry()).toMatchObject({ pane: reopened.pane });
    first = reopened.pane;
  });

  it('--toggle closes an open board and opens a closed one', async () => {
    const closed = await dock('--toggle');
    expect(closed).toMatchObject({ action: 'closed', pane: first });
    expect((await herdr.call('pane.get', { pane_id: first })).error?.code).toBe('pane_not_found');
    expect(await registry()).toMatchObject({ pane: null, terminal_id: null });
    await ok('_fake.calls.clear');
    const opened = await dock('--toggle');
    expect(opened).toMatchObject({ action: 'opened', stale: null, ratio: 0.38 });
    // The same recipe as --open: split the leftmost pane right, swap left, 38 cells of that split.
    const asked = (await calls()).filter((c) =>
      ['plugin.pane.open', 'pane.swap', 'layout.set_split_ratio', 'pane.split'].includes(c.method),
    );
    expect(asked.map((c) => c.method)).toEqual(['plugin.pane.open', 'pane.swap', 'layout.set_split_ratio']);
    expect(asked[0]?.params).toMatchObject({ placement: 'split', direction: 'right', target_pane_id: left });
    expect(asked[1]?.params).toEqual({ pane_id: opened.pane, direction: 'left' });
    expect(asked[2]?.params).toEqual({ pane_id: opened.pane, path: [false], ratio: 0.38 });
    first = opened.pane;
  });

  it('takes an entry whose pane id now names another terminal as stale, never that pane', async () => {
    await ok('pane.close', { pane_id: first });
    // The registry names a live pane (the tab's leftmost) with a terminal that is not its own.
    const entry = await registry();
    await writeFile(
      boardFile(statePaths(state), tab),
      JSON.stringify({ ...entry, pane: left, terminal_id: 'term_gone' }),
    );
    const opened = await dock('--open');
    expect(opened).toMatchObject({ action: 'opened', stale: left });
    expect(opened.pane).not.toBe(left);
    expect((await herdr.call('pane.get', { pane_id: left })).error).toBeUndefined();
    first = opened.pane;
  });

  it('clears a stale entry before the split, so a failed split leaves no entry naming a gone pane', async () => {
    await ok('pane.close', { pane_id: first });
    await ok('_fake.fail_next', { method: 'plugin.pane.open', code: 'internal_error', message: 'boom' });
    const failed = await runCli(['board', '--open'], env);
    expect(failed.code).toBe(2);
    expect(failed.stderr.split('\n')).toHaveLength(2);
    expect(await registry()).toMatchObject({ pane: null, terminal_id: null });
    const opened = await dock('--open');
    expect(opened).toMatchObject({ action: 'opened', stale: null });
    first = opened.pane;
  });

  it('says to install the Herdr plugin when Herdr does not know it, in one line', async () => {
    await ok('pane.close', { pane_id: first });
    await ok('_fake.fail_next', {
      method: 'plugin.pane.open',
      code: 'plugin_not_found',
      message: 'plugin dogsled not found',
    });
    const failed = await runCli(['board', '--open'], env);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe(
      `dogsled: board: the dogsled plugin is not installed in Herdr: herdr plugin install oisin-ee/dogsled --ref v${VERSION} --yes\n`,
    );
    first = (await dock('--open')).pane;
  });

  it("toggles from the plugin's action, which runs outside any pane, in the focused pane's tab", async () => {
    const action: NodeJS.ProcessEnv = {
      ...env,
      HERDR_PLUGIN_ID: 'dogsled',
      HERDR_PLUGIN_ACTION_ID: 'toggle',
      HERDR_PLUGIN_CONTEXT_JSON: JSON.stringify({ tab_id: tab, focused_pane_id: caller }),
    };
    delete action.HERDR_PANE_ID;
    const run = async () => {
      const result = await runCli(['board', '--toggle', '--json'], action);
      expect(result.stderr).toBe('');
      return DockResultSchema.parse(JSON.parse(result.stdout));
    };
    expect(await run()).toMatchObject({ action: 'closed', pane: first, tab });
    const opened = await run();
    expect(opened).toMatchObject({ action: 'opened', tab });
    expect(await registry()).toMatchObject({ pane: opened.pane, owner: caller });
    first = opened.pane;
  });

  it('names both panes when run in neither, before any split', async () => {
    const outside = { ...env };
    delete outside.HERDR_PANE_ID;
    await ok('_fake.calls.clear');
    for (const flag of ['--open', '--toggle']) {
      const result = await runCli(['board', flag], outside);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `dogsled: board ${flag} needs a Herdr or tmux pane (neither HERDR_PANE_ID nor TMUX_PANE is set)\n`,
      );
    }
    expect((await calls()).some((c) => c.method === 'plugin.pane.open')).toBe(false);
  });

  it('makes one board when two opens race in the same tab', async () => {
    await dock('--toggle'); // closed
    await ok('_fake.calls.clear');
    const [a, b] = await Promise.all([dock('--open'), dock('--open')]);
    expect([a.action, b.action].sort()).toEqual(['opened', 'reused']);
    expect(a.pane).toBe(b.pane);
    expect((await calls()).filter((c) => c.method === 'plugin.pane.open')).toHaveLength(1);
  });

  it('keeps one board when the first open is frozen (SIGSTOP) inside the registry lock', async () => {
    await dock('--toggle'); // closed
    await ok('_fake.calls.clear');
    const file = boardFile(statePaths(state), tab);
    const frozen = spawnCli(
      ['board', '--open', '--json'],
      {
        ...env,
        DOGSLED_TEST: '1',
        DOGSLED_TEST_LOCK_STALE_MS: '1000',
        ...stopInLock(file),
      },
      { timeoutMs: 60_000 },
    );
    // Frozen in the pause before its write, never between connecting to Herdr and sending the
    // request: the fake, like Herdr, drops a connection that sends no line within 5 s.
    await stoppedItself(frozen.child.pid);
    expect((await inspectLock(file))?.owner?.pid).toBe(frozen.child.pid);
    await lockUnrefreshedFor(file, 2_000);
    const second = spawnCli(
      ['board', '--open', '--json'],
      { ...env, DOGSLED_TEST: '1', DOGSLED_TEST_LOCK_STALE_MS: '1000' },
      { timeoutMs: 60_000 },
    );
    // Long enough for the second to start and retry past the stale window (no event marks a waiter's
    // attempts): still waiting, since a live holder's lock is never taken.
    await sleep(3000);
    expect(second.child.exitCode).toBeNull();
    frozen.child.kill('SIGCONT');
    const [a, b] = await Promise.all([frozen.done, second.done]);
    expect([a.code, b.code], `${a.stderr}${b.stderr}`).toEqual([0, 0]);
    expect([JSON.parse(a.stdout).action, JSON.parse(b.stdout).action]).toEqual(['opened', 'reused']);
    expect((await calls()).filter((c) => c.method === 'plugin.pane.open')).toHaveLength(1);
  }, 60_000);

  it('refuses a registry entry that is not a file, in one line, before any split', async () => {
    await dock('--toggle'); // closed
    await rm(boardFile(statePaths(state), tab));
    await mkdir(boardFile(statePaths(state), tab));
    await ok('_fake.calls.clear');
    const result = await runCli(['board', '--open'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: board: .*a directory, not a regular file\n$/);
    expect((await calls()).some((c) => c.method === 'plugin.pane.open')).toBe(false);
    await rm(boardFile(statePaths(state), tab), { recursive: true });
  });
});

describe('a lost registry entry', () => {
  // The tab's boards as Herdr lists them: panes labelled with the manifest's title.
  const boards = async (): Promise<string[]> =>
    (await ok('pane.list', {})).panes
      .filter((p: { tab_id: string; label?: string }) => p.tab_id === tab && p.label === 'Dogsled')
      .map((p: { pane_id: string }) => p.pane_id);
  const file = () => boardFile(statePaths(state), tab);
  const opens = async () => (await calls()).filter((c) => c.method === 'plugin.pane.open').length;
  // A corrupt entry is quarantined with a warning; the result is still the one JSON line.
  const dockWarned = async (...flags: string[]) => {
    const result = await runCli(['board', ...flags, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    return DockResultSchema.parse(JSON.parse(result.stdout));
  };

  beforeEach(async () => {
    for (const pane of await boards()) await ok('pane.close', { pane_id: pane });
    await rm(file(), { recursive: true, force: true });
  });

  it('adopts the board left in the tab when its entry was removed, and --toggle closes it', async () => {
    const board = (await dock('--open')).pane;
    await rm(file());
    await ok('_fake.calls.clear');
    expect(await dock('--open')).toMatchObject({ action: 'reused', pane: board });
    expect(await opens()).toBe(0);
    expect(await registry()).toMatchObject({ pane: board, owner: caller });
    await rm(file());
    expect(await dock('--toggle')).toMatchObject({ action: 'closed', pane: board });
    expect(await boards()).toEqual([]);
    expect(await registry()).toMatchObject({ pane: null, terminal_id: null });
  });

  it('adopts the board when its entry is corrupt', async () => {
    const board = (await dock('--open')).pane;
    await writeFile(file(), '{"version":1,"tab":');
    await ok('_fake.calls.clear');
    expect(await dockWarned('--toggle')).toMatchObject({ action: 'closed', pane: board });
    expect(await opens()).toBe(0);
    expect(await boards()).toEqual([]);
    await writeFile(file(), '\u001b[31mnot json');
    const opened = await dockWarned('--open');
    expect(opened.action).toBe('opened');
    expect(await boards()).toEqual([opened.pane]);
  });

  it('refuses an entry that is a directory or a FIFO with the board open, then adopts that board once it is gone', async () => {
    const board = (await dock('--open')).pane;
    await ok('_fake.calls.clear');
    for (const [make, kind] of [
      [() => mkdir(file()), 'a directory'],
      [async () => execFileSync('mkfifo', [file()]), 'a FIFO'],
    ] as const) {
      await rm(file(), { recursive: true });
      await make();
      for (const flag of ['--open', '--toggle']) {
        const refused = await runCli(['board', flag], env);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(new RegExp(`^dogsled: board: .*${kind}, not a regular file\\n$`));
      }
    }
    expect(await boards()).toEqual([board]);
    await rm(file(), { recursive: true });
    expect(await dock('--open')).toMatchObject({ action: 'reused', pane: board });
    expect(await opens()).toBe(0);
    expect(await boards()).toEqual([board]);
  });

  it('adopts the board of an --open killed (SIGKILL) between the split and the entry', async () => {
    const hold = { ...env, DOGSLED_TEST: '1', DOGSLED_TEST_LOCK_STALE_MS: '1000' };
    const killed = spawnCli(
      ['board', '--open', '--json'],
      { ...hold, DOGSLED_TEST_LOCK_HOLD_FILE: basename(file()), DOGSLED_TEST_LOCK_HOLD_MS: '600000' },
      { timeoutMs: 60_000 },
    );
    // The lock's test pause comes after the split and before the entry's write.
    await waitFor(
      'the open to pause after its split',
      async () =>
        (await readFile(`${file()}.holding`, 'utf8').catch(() => '')) === String(killed.child.pid)
          ? true
          : undefined,
      { timeoutMs: 30_000 },
    );
    killed.child.kill('SIGKILL');
    await killed.done;
    const [board] = await boards();
    expect(board).toBeDefined();
    await ok('_fake.calls.clear');
    const again = await runCli(['board', '--open', '--json'], hold);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ action: 'reused', pane: board });
    expect(await opens()).toBe(0);
    expect(await boards()).toEqual([board]);
    expect(await dock('--toggle')).toMatchObject({ action: 'closed', pane: board });
    expect(await boards()).toEqual([]);
  }, 60_000);

  it('docks anew a tagged board that an --open left mid-dock (not yet swapped to the left)', async () => {
    const board = (await dock('--open')).pane;
    // Where an open killed after Herdr's split, before its swap, leaves the board.
    await ok('pane.swap', { pane_id: board, direction: 'right' });
    await rm(file());
    const opened = await dock('--open');
    expect(opened).toMatchObject({ action: 'opened', ratio: 0.38 });
    expect(await boards()).toEqual([opened.pane]);
    const layout = (await ok('pane.layout', { pane_id: caller })).layout;
    const sorted = [...layout.panes].sort((a, b) => a.rect.x - b.rect.x);
    expect(sorted[0]).toMatchObject({ pane_id: opened.pane, rect: { x: 0, width: 38 } });
  });

  it("never adopts a user's pane that is only labelled like the board", async () => {
    const mine = (await ok('pane.split', { target_pane_id: caller, direction: 'down' })).pane.pane_id;
    await ok('pane.rename', { pane_id: mine, label: 'Dogsled' });
    const opened = await dock('--open');
    expect(opened).toMatchObject({ action: 'opened' });
    expect(opened.pane).not.toBe(mine);
    await rm(file());
    expect(await dock('--toggle')).toMatchObject({ action: 'closed', pane: opened.pane });
    expect(await boards()).toEqual([mine]);
    await ok('pane.close', { pane_id: mine });
  });
});

describe('board --open without Herdr', () => {
  it('says it needs Herdr or tmux, or a pane of one, in one line and exits 2', async () => {
    const box = await sandbox({ HERDR_PANE_ID: 'w1:p1' });
    try {
      for (const flag of ['--open', '--toggle']) {
        const result = await runCli(['board', flag], box.env);
        expect(result.code).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(new RegExp(`^dogsled: board ${flag} needs Herdr or tmux \\(.+\\)\\n$`));
      }
    } finally {
      await box.cleanup();
    }
  });
});
