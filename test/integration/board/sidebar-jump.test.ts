// ⏎ on a child in tmux switches the terminal to it: the board runs in a real tmux session that a
// real client shows (a tmux client attached from a second, outer tmux, whose screen the test reads),
// the child lives in a session of its own, and ⏎ leaves that client showing the child's window. The
// inner panes have tmux's TERM=screen (eight colours to terminfo); the board still draws in 256.

import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, type Sandbox, sandbox } from '../../helpers/cli.js';
import { itemFixture } from '../../helpers/job-fixtures.js';
import { type TmuxServer as Outer, startTmux, type Tmux } from '../../helpers/tmux.js';
import { startTmuxServer, type TmuxServer } from '../../helpers/tmux-server.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
let box: Sandbox;
let inner: TmuxServer;
let outer: Outer;
let screen: Tmux;

beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await screen?.kill();
  await outer?.kill();
  await inner?.kill();
  await box.cleanup();
});

describe.skipIf(!HAS_TMUX)('⏎ on a child in tmux', () => {
  it("switches the client that shows the board to the child's session and window", async () => {
    inner = await startTmuxServer({
      dir: box.root,
      name: 'inner',
      width: 120,
      height: 40,
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: box.home, NCURSES_NO_UTF8_ACS: '1' },
    });
    const owner = (await inner.tmux('display-message', '-p', '-t', 'base:', '#{pane_id}')).trim();
    // The child: its own session, a second window, showing something the test can recognise.
    await inner.tmux('new-session', '-d', '-s', 'child', '-c', box.root, 'sh -c "exec sleep 600"');
    const child = (
      await inner.tmux(
        'new-window',
        '-P',
        '-F',
        '#{pane_id}',
        '-t',
        'child:',
        '-c',
        box.root,
        'sh -c "echo CHILD-SCREEN; exec sleep 600"',
      )
    ).trim();
    await inner.tmux('select-window', '-t', 'child:0');
    const items = [
      itemFixture({
        id: 'i_fixer',
        kind: 'agent',
        pane: child,
        owner,
        job: null,
        name: 'fixer',
        harness: 'claude',
      }),
    ];
    await mkdir(box.state, { recursive: true, mode: 0o700 });
    await writeFile(join(box.state, 'items.json'), JSON.stringify({ version: 1, items }));
    // The board, docked left of the owner's pane as `board --open` docks it.
    const env = (key: string, value: string) => ['-e', `${key}=${value}`];
    await inner.tmux(
      'split-window',
      '-hb',
      '-l',
      '38',
      '-t',
      owner,
      ...env('DOGSLED_STATE', box.state),
      ...env('DOGSLED_TEST', '1'),
      ...env('DOGSLED_TEST_SIDEBAR_POLL_MS', '600000'),
      ...env('LANG', 'C.UTF-8'),
      // tmux's older default: eight colours to terminfo.
      ...env('TERM', 'screen'),
      `${process.execPath} ${CLI} sidebar --owner ${owner}`,
    );
    outer = await startTmux(await tempDir('dogsled-outer-'), `jo${process.pid}`);
    screen = await outer.open({
      dir: box.root,
      width: 120,
      height: 40,
      argv: ['tmux', '-S', inner.socket, 'attach', '-t', 'base'],
      env: { TERM: 'xterm-256color', PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: box.home },
    });
    await screen.waitFor('the board through the client', (rows) => rows.some((r) => r.includes('fixer')));
    // Eight colours to terminfo inside tmux (TERM=screen), yet the board draws its 256-colour accent.
    expect(await screen.captureAnsi()).toContain('38;5;75');
    await screen.keys('Enter');
    const client = await waitFor(
      "the client switched to the child's session",
      async () => {
        const line = (
          await inner.tmux('list-clients', '-F', '#{session_name} #{window_index} #{pane_id}')
        ).trim();
        return line.startsWith('child ') ? line : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(client).toBe(`child 1 ${child}`);
    await screen.waitFor("the child's window on the screen", (rows) =>
      rows.some((r) => r.includes('CHILD-SCREEN')),
    );
    // Back on the board, it says where ⏎ went.
    await inner.tmux('switch-client', '-t', 'base');
    await screen.waitFor('the message', (rows) =>
      rows.some((r) => r.includes(`switched to fixer (${child})`)),
    );
  });
});
