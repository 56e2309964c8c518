// The sidebar's first frame, written to the terminal before blessed loads (sidebar/model/ansi-frame.ts):
// in a real tmux, with blessed held back (DOGSLED_TEST_SIDEBAR_HOLD_MS) and the clock fixed
// (DOGSLED_TEST_NOW_MS), the screen that frame leaves is read back with its colours and compared
// cell for cell with the screen blessed leaves once it has taken over (its mouse reporting on). A
// difference would show as the board changing under the person a moment after it appeared.

import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { idHash } from '../../../service/state/records/sidebar-files.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { sidebarHost } from '../../helpers/sidebar-host.js';
import { startTmux, type Tmux, type TmuxServer } from '../../helpers/tmux.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { OWNER, openSidebar, writeAfternoon } from './sidebar-fixtures.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAS_TMUX) console.warn('sidebar first-paint tests skipped: tmux is not installed');
const NOW = 1_765_000_000_000;
/** Long enough to read the frame written ahead; blessed then loads. */
const HOLD_MS = 2_500;
let box: Sandbox;
let server: TmuxServer;
let screens: Tmux[];

beforeAll(async () => {
  if (HAS_TMUX) server = await startTmux(await tempDir('dogsled-tmux-'), `fp${process.pid}`);
});
afterAll(async () => server?.kill());
beforeEach(async () => {
  box = await sandbox();
  screens = [];
});
afterEach(async () => {
  for (const screen of screens) await screen.kill();
  await box.cleanup();
});

/** The afternoon, hosts with sparklines (one unreachable, one with a wide-character name), todos. */
async function busyState(): Promise<string> {
  await writeAfternoon(box.state, NOW);
  const hosts = [
    sidebarHost({ busy_history: [0, 0.2, 0.5, 0.9, 1, 0.4, 0.1] }),
    sidebarHost({ id: 'h1', label: 'build-東京', local: false, busy_history: [0.5, null, 0.7] }),
    sidebarHost({ id: 'h2', label: 'gpu', local: false, reachable: false, unreachable: 'ssh: timed out' }),
  ];
  const file = join(box.root, 'hosts.json');
  await writeFile(file, JSON.stringify({ hosts }));
  const todos = join(box.state, 'todo-lines');
  await mkdir(todos, { recursive: true });
  await writeFile(
    join(todos, `${idHash(OWNER)}.json`),
    JSON.stringify({
      protocol: 3,
      session: 's1',
      branch: null,
      revision: 1,
      current: null,
      pane: OWNER,
      sections: [
        { kind: 'progress', done: 1, total: 3 },
        { kind: 'now', title: 'NOW', lines: ['wire the parser'] },
        { kind: 'next', title: 'NEXT', lines: ['tests'] },
      ],
    }),
  );
  return file;
}

/** The sidebar at the fixed clock, blessed held back; once the board shows (the frame written ahead). */
async function open(width: number, height: number, env: NodeJS.ProcessEnv = {}): Promise<Tmux> {
  const screen = await openSidebar({
    server,
    box,
    width,
    height,
    env: { DOGSLED_TEST_NOW_MS: String(NOW), DOGSLED_TEST_SIDEBAR_HOLD_MS: String(HOLD_MS), ...env },
    ahead: true,
  });
  screens.push(screen);
  return screen;
}

/** blessed has taken the screen over: it turns mouse reporting on as it draws its first frame. */
async function untilBlessed(screen: Tmux): Promise<void> {
  await waitFor(
    'blessed to take the screen over',
    async () => (await screen.format('#{mouse_any_flag}')) === '1',
    {
      timeoutMs: 20_000,
    },
  );
  // Its first frame leaves in the write that turned the mouse on; tmux has it once two reads agree.
  await screen.waitFor('the board', (rows) => rows.some((r) => r.includes('Agents & Jobs')));
}

/** The frame written ahead (blessed still held back), then blessed's: both with their colours. */
async function bothFrames(screen: Tmux): Promise<{ ahead: string; blessed: string }> {
  await screen.waitFor('the frame written ahead', (rows) => rows.some((r) => r.includes('Agents & Jobs')));
  const ahead = await screen.captureAnsi();
  // Still ahead of blessed when it was read: the alternate screen, no mouse, the cursor hidden.
  expect(await screen.format('#{alternate_on} #{mouse_any_flag} #{cursor_flag}')).toBe('1 0 0');
  await untilBlessed(screen);
  return { ahead, blessed: await screen.captureAnsi() };
}

describe.skipIf(!HAS_TMUX)('the sidebar frame written ahead of blessed', () => {
  it('is the frame blessed draws, cell for cell and colour for colour, in the default theme', async () => {
    const hosts = await busyState();
    const screen = await open(38, 45, { DOGSLED_TEST_SIDEBAR_HOSTS: hosts });
    const { ahead, blessed } = await bothFrames(screen);
    expect(ahead).toContain('build-東京');
    expect(ahead).toContain('wire the parser');
    expect(ahead).toMatch(/\u001b\[[\d;]*38;5;\d+/);
    expect(ahead).toBe(blessed);
  });

  it('is the same in catppuccin on a light background, with no colours, and on a short wide screen', async () => {
    const hosts = await busyState();
    await writeFile(join(box.root, 'herdr-config.toml'), '[theme]\nname = "catppuccin"\n');
    const variants: Array<[number, number, NodeJS.ProcessEnv]> = [
      [38, 45, { COLORFGBG: '0;15' }],
      [38, 45, { NO_COLOR: '1' }],
      [90, 14, {}],
    ];
    for (const [width, height, env] of variants) {
      const screen = await open(width, height, { DOGSLED_TEST_SIDEBAR_HOSTS: hosts, ...env });
      const { ahead, blessed } = await bothFrames(screen);
      expect(ahead, JSON.stringify(env)).toBe(blessed);
      await screen.kill();
    }
  });

  it('keeps keys pressed before blessed listens, unechoed, for blessed to act on', async () => {
    const hosts = await busyState();
    const screen = await open(38, 45, { DOGSLED_TEST_SIDEBAR_HOSTS: hosts });
    await screen.waitFor('the frame written ahead', (rows) => rows.some((r) => r.includes('Agents & Jobs')));
    const ahead = await screen.captureAnsi();
    // The Hosts panel gets the focus (shift-Tab from Agents & Jobs) and its selection moves down (j):
    // nothing shows yet.
    await screen.keys('BTab', 'j');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await screen.format('#{mouse_any_flag}')).toBe('0');
    expect(await screen.captureAnsi()).toBe(ahead);
    await untilBlessed(screen);
    const rows = await screen.waitFor('the Hosts panel focused', (r) =>
      r.some((row) => row.includes('● Hosts')),
    );
    expect(rows.some((r) => r.includes('● Agents & Jobs'))).toBe(false);
  });

  it('is not written where blessed alone knows the colours or the characters: blessed draws first', async () => {
    await busyState();
    // An 8-colour terminfo; a locale that is not UTF-8 (blessed draws its borders in the terminal's
    // line-drawing set there). Held back for a minute if a frame were written ahead: blessed's comes
    // long before.
    for (const env of [{ TERM: 'xterm' }, { LANG: 'C' }]) {
      const screen = await open(38, 45, { ...env, DOGSLED_TEST_SIDEBAR_HOLD_MS: '60000' });
      await screen.waitFor('the board', (rows) => rows.some((r) => r.includes('Agents & Jobs')));
      expect(await screen.format('#{mouse_any_flag}'), JSON.stringify(env)).toBe('1');
      await screen.kill();
    }
  });
});
