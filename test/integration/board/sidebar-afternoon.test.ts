// An afternoon as a new user has it, in a real tmux with no Herdr, read through a real tmux client:
// `board --open` docks the board; a child on a branch finishes and its branch waits TO LAND
// ("+1 to land" first); a job fails ("exit 3") and is dismissed with `d`; a job queues on a full
// host and its card says why ("#2 queued", in the words `status` gives); ⏎ on a child still at work switches the
// client to the child's session. Nothing the owner acts on is cut. A real `serve` runs throughout.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_AGENTS_BIN } from '../../fakes/agents/harness.js';
import { runCli, type Sandbox, sandbox, type startCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { type TmuxServer as Outer, startTmux, type Tmux } from '../../helpers/tmux.js';
import { startTmuxServer, type TmuxServer } from '../../helpers/tmux-server.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { doneTask, quickTask } from '../agents/agent-fixtures.js';
import { killAll, roomFor5, startServe, untilEligible } from '../jobs/job-queue-fixtures.js';
import { dogsledBin, installPluginHooks } from '../terminal/tmux-fixtures.js';
import { flat } from './sidebar-fixtures.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
let box: Sandbox;
let server: TmuxServer;
let outer: Outer | undefined;
let client: Tmux | undefined;
let repo: Repo;
let env: NodeJS.ProcessEnv;
let caller: string;
let stopTicker: () => void = () => undefined;
const running: Array<ReturnType<typeof startCli>> = [];

beforeEach(async () => {
  box = await sandbox({ DOGSLED_TEST: '1', DOGSLED_TEST_LAUNCH_BACKOFF_SCALE: '0.01' });
  repo = await freshRepo();
  const bin = await dogsledBin(box.root);
  await installPluginHooks(box.home);
  server = await startTmuxServer({
    dir: box.root,
    name: 'afternoon',
    width: 160,
    height: 50,
    env: {
      PATH: `${bin}:${FAKE_AGENTS_BIN}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: box.home,
      DOGSLED_STATE: box.state,
      DOGSLED_TEST: '1',
      FAKE_AGENT_LOG_DIR: join(box.root, 'agent-log'),
      GIT_AUTHOR_NAME: 'Child',
      GIT_AUTHOR_EMAIL: 'child@example.com',
      GIT_COMMITTER_NAME: 'Child',
      GIT_COMMITTER_EMAIL: 'child@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      NCURSES_NO_UTF8_ACS: '1',
      LANG: 'C.UTF-8',
    },
  });
  caller = (await server.tmux('display-message', '-p', '-t', 'base:', '#{pane_id}')).trim();
  const host = await roomFor5(box, 120_000);
  stopTicker = host.stop;
  startServe({ ...host.env, ...server.env }, running);
  await untilEligible(box);
  env = { ...box.env, ...server.env, TMUX_PANE: caller };
});

afterEach(async () => {
  stopTicker();
  await killAll(running);
  await client?.kill();
  await outer?.kill();
  await server.kill();
  await box.cleanup();
});
afterAll(removeScenarios);

async function cli(args: string[], cwd = repo.main) {
  const result = await runCli(args, env, { cwd, timeoutMs: 60_000 });
  return result;
}

/** The board pane's text (inside its frame), as one line. */
async function board(pane: string): Promise<string> {
  const rows = (await server.tmux('capture-pane', '-p', '-t', pane)).split('\n');
  return flat(rows.map((r) => r.slice(1, -1)));
}

/** Moves the board's selection down, a key at a time (each waited for), to the card showing `text`. */
async function select(pane: string, text: string): Promise<void> {
  const capture = async () => (await server.tmux('capture-pane', '-p', '-t', pane)).split('\n');
  // The row the selection marks: ages ticking and refreshes change the screen, not this.
  const marked = (rows: string[]) => rows.findIndex((r) => r.startsWith('│▌'));
  for (let i = 0; i < 12; i++) {
    const rows = await capture();
    if (rows[marked(rows)]?.includes(text)) return;
    await client?.keys('Down');
    await waitFor(
      'the selection moved',
      async () => {
        const now = await capture();
        if (marked(now) !== marked(rows)) return true;
        // Thrown, not undefined, so a timeout shows the board before and after the key, and where
        // the keys went (the active pane, the client's pane).
        const panes = await server.tmux(
          'list-panes',
          '-a',
          '-F',
          '#{pane_id} active=#{pane_active} #{pane_current_command}',
        );
        const clients = await server.tmux('list-clients', '-F', '#{client_name} on #{pane_id}');
        throw new Error(
          `before the key:\n${rows.join('\n')}\nnow:\n${now.join('\n')}\npanes:\n${panes}clients:\n${clients}`,
        );
      },
      { timeoutMs: 10_000 },
    );
  }
  throw new Error(`no card showing ${text} to select`);
}

describe.skipIf(!HAS_TMUX)('an afternoon with the board open', () => {
  it('lands a child, dismisses a failed job, explains a queued ticket and jumps to a child', async () => {
    const opened = await cli(['board', '--open', '--json']);
    expect({ code: opened.code, stderr: opened.stderr }).toEqual({ code: 0, stderr: '' });
    const pane = JSON.parse(opened.stdout).pane as string;
    // A person looking at the base session, through a real client.
    outer = await startTmux(await tempDir('dogsled-outer-'), `af${process.pid}`);
    client = await outer.open({
      dir: box.root,
      width: 160,
      height: 50,
      argv: ['tmux', '-S', server.socket, 'attach', '-t', 'base'],
      env: { TERM: 'xterm-256color', PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: box.home },
    });
    await client.waitFor('the board on the screen', (rows) => rows.some((r) => r.includes('Agents & Jobs')));

    // A child finishes on its branch: TO LAND, the action first.
    const landed = await cli([
      'agent',
      '--kind',
      'claude',
      '--name',
      'parser',
      '--branch',
      'feat/parser',
      '--json',
      '--message',
      doneTask('Parser done.'),
    ]);
    expect(landed.code, landed.stderr).toBe(0);
    await waitFor(
      'TO LAND',
      async () => ((await board(pane)).includes('+1 to land parser') ? true : undefined),
      { timeoutMs: 60_000 },
    );
    expect(await board(pane)).toContain('branch feat/parser');

    // A job fails; `d` on its card moves it to DONE, its record as it was.
    const failed = await cli(['run', '--wait', '--', 'sh', '-c', 'exit 3']);
    expect(failed.code, failed.stderr).toBe(3);
    await waitFor(
      'exit 3',
      async () => ((await board(pane)).includes("exit 3 sh -c 'exit 3'") ? true : undefined),
      { timeoutMs: 20_000 },
    );
    // The board pane is where keys go: select the failed card and dismiss it.
    await server.tmux('select-pane', '-t', pane);
    await select(pane, 'exit 3');
    await client.keys('d');
    await waitFor(
      'dismissed',
      async () => ((await board(pane)).includes('DONE 1 (1 seen)') ? true : undefined),
      { timeoutMs: 10_000 },
    );

    // A second child, still at its prompt (⏎ on it comes last).
    const working = await cli([
      'agent',
      '--kind',
      'claude',
      '--name',
      'fixer',
      '--json',
      '--message',
      quickTask('On it.'),
    ]);
    expect(working.code, working.stderr).toBe(0);
    const childPane = JSON.parse(working.stdout).pane as string;
    await waitFor('the child fixer', async () => ((await board(pane)).includes('fixer') ? true : undefined), {
      timeoutMs: 30_000,
    });
    // The host fills up (placements until one queues); a job queues behind it, and its card says why.
    let placed = 0;
    while ((await cli(['place', '--json'])).code === 0) placed += 1;
    expect(placed).toBeLessThanOrEqual(5);
    const queued = await cli(['run', '--json', '--', 'make', 'lint']);
    expect(queued.code, queued.stderr).toBe(1);
    // The child's reservation ends once its agent is seen, and the ticket that queued takes that
    // room: between the two the host has room, and the free cores move with each admission. So the
    // card is compared with what `status` says in the same poll, once the host is full by cpu (a
    // reading of status taken before the board's refresh named a headroom that had moved on).
    const why = await waitFor(
      "the queued ticket and why, in status's words",
      async () => {
        const status = JSON.parse((await cli(['status', '--json'])).stdout);
        const reasons: string[] = status.hosts[0].headroom.reason;
        const text = await board(pane);
        const full = reasons.some((r) => r.startsWith('cpu: '));
        // #2 behind the place that queued, or #1 once that ticket's room came free and it was admitted.
        if (
          full &&
          /#[12] queued make lint/.test(text) &&
          text.includes(`no host has room (local: ${reasons.join('; ')})`) &&
          text.includes(`▲ ${reasons[0]}`)
        )
          return text;
        // Thrown, not undefined, so a timeout shows both as they last were.
        throw new Error(`status's reasons ${JSON.stringify(reasons)}; the board reads: ${text}`);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(why).toMatch(/no host has room \(local: cpu: /);

    // ⏎ on the child switches the client to its session.
    await select(pane, 'fixer');
    await client.keys('Enter');
    const where = await waitFor(
      "the client on the child's pane",
      async () => {
        const line = (await server.tmux('list-clients', '-F', '#{pane_id}')).trim();
        return line === childPane ? line : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(where).toBe(childPane);
  }, 180_000);
});
