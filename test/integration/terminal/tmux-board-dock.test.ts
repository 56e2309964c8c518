// `board --open` / `--toggle` in a real tmux: the board docks full height at the left edge of the
// caller's window, 38 cells wide (split-window -hbf -l 38), a second --open reuses it (also with its
// registry entry lost), and --toggle closes it, leaving the caller's pane as it was.

import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statePaths } from '../../../service/state/paths.js';
import { boardFile } from '../../../service/state/records/sidebar-files.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { startTmuxServer, type TmuxServer } from '../../helpers/tmux-server.js';

let box: Sandbox;
let server: TmuxServer;
let env: NodeJS.ProcessEnv;
let caller: string;

beforeEach(async () => {
  box = await sandbox();
  server = await startTmuxServer({
    dir: box.root,
    name: 'board',
    width: 160,
    height: 40,
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: box.home, NCURSES_NO_UTF8_ACS: '1' },
  });
  caller = (await server.tmux('display-message', '-p', '-t', 'base:', '#{pane_id}')).trim();
  env = { ...box.env, ...server.env, TMUX_PANE: caller };
});

afterEach(async () => {
  await server.kill();
  await box.cleanup();
});

async function panes(): Promise<{ id: string; left: number; top: number; width: number; height: number }[]> {
  const out = await server.tmux(
    'list-panes',
    '-t',
    caller,
    '-F',
    '#{pane_id} #{pane_left} #{pane_top} #{pane_width} #{pane_height}',
  );
  return out
    .trim()
    .split('\n')
    .map((line) => {
      const [id, left, top, width, height] = line.split(' ');
      return {
        id: id as string,
        left: Number(left),
        top: Number(top),
        width: Number(width),
        height: Number(height),
      };
    });
}

async function dock(flag: string) {
  const result = await runCli(['board', flag, '--json'], env, { timeoutMs: 30_000 });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as { action: string; pane: string; tab: string };
}

describe('board --open and --toggle in tmux', () => {
  it('docks the board 38 cells wide, full height, at the left, reuses it, and --toggle closes it', async () => {
    const opened = await dock('--open');
    expect(opened.action).toBe('opened');
    const board = (await panes()).find((p) => p.id === opened.pane);
    expect(board).toEqual({ id: opened.pane, left: 0, top: 0, width: 38, height: 40 });
    const rest = (await panes()).find((p) => p.id === caller);
    expect(rest?.left).toBe(39);

    expect((await dock('--open')).action).toBe('reused');
    expect((await panes()).length).toBe(2);

    // A lost registry entry: the tagged board is adopted, never a second one docked beside it.
    await rm(boardFile(statePaths(box.state), opened.tab));
    expect(await dock('--open')).toMatchObject({ action: 'reused', pane: opened.pane });
    expect((await panes()).length).toBe(2);
    await rm(boardFile(statePaths(box.state), opened.tab));

    const closed = await dock('--toggle');
    expect(closed).toMatchObject({ action: 'closed', pane: opened.pane });
    expect((await panes()).map((p) => p.id)).toEqual([caller]);
  });
});
