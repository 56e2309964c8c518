// `dogsled sidebar` in a real terminal: one private tmux server for the file, each screen a session
// 38 columns wide, read back with capture-pane. Hosts come from fixture snapshots (peers arrive
// later: DOGSLED_TEST_SIDEBAR_HOSTS stands in for what the status reader will return), work from
// real items, tickets and job records.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import blessed from 'blessed';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { idHash } from '../../../service/state/records/sidebar-files.js';
import type { SidebarHost } from '../../../sidebar/model/types.js';
import { CLI, type Sandbox, sandbox } from '../../helpers/cli.js';
import { inboxBox, inboxPair, registerClaude } from '../../helpers/inbox-fixture.js';
import { itemFixture, jobFixture, ticketFixture } from '../../helpers/job-fixtures.js';
import { agentPaneFixture, snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { click, startTmux, type Tmux, type TmuxServer, wheel } from '../../helpers/tmux.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const OWNER = 'w1:p1';
const GIB = 1024 ** 3;
const WIDTH = 38;
/** The render tests need tmux (.ci/run installs it); without it they are skipped, saying so. */
const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAS_TMUX) console.warn('sidebar render tests skipped: tmux is not installed');
let box: Sandbox;
let screens: Tmux[];
let server: TmuxServer;

beforeAll(async () => {
  if (HAS_TMUX) server = await startTmux(await tempDir('dogsled-tmux-'), `sb${process.pid}`);
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

function fixtureHost(i: number, extra: Partial<SidebarHost> = {}): SidebarHost {
  return {
    id: `h${i}`,
    label: i === 0 ? 'local' : `peer-${i}`,
    local: i === 0,
    reachable: true,
    service: 'up',
    eligible: true,
    age_ms: 1000,
    reservations: 0,
    reason: [],
    free_cores: null,
    unreachable: null,
    reserved: [],
    agents: [],
    jobs: [],
    probe: {
      cores: 16,
      busy: (i % 4) / 4,
      load1: 1,
      memory: { total_bytes: 64 * GIB, free_bytes: (40 - i) * GIB },
      disk: { total_bytes: 1000 * GIB, free_bytes: 400 * GIB },
    },
    busy_history: [0, 0.25, 0.5, 0.75, 1, 0.5],
    ...extra,
  };
}

async function hostsFile(hosts: SidebarHost[]): Promise<string> {
  const file = join(box.root, 'hosts.json');
  await writeFile(file, JSON.stringify({ hosts }));
  return file;
}

/** samples.jsonl as the service appends it, one line per busy figure (null: no CPU sample then). */
async function writeSamples(state: string, now: number, busy: Array<number | null>): Promise<void> {
  await mkdir(state, { recursive: true, mode: 0o700 });
  const lines = busy.map((value, i) =>
    JSON.stringify({
      ts_ms: now - (busy.length - i) * 10_000,
      cores: 8,
      busy: value,
      load1: 1,
      memory: { total_bytes: 64 * GIB, used_bytes: 16 * GIB, free_bytes: 48 * GIB },
      pressure_level: null,
      disk: { total_bytes: 1000 * GIB, free_bytes: 500 * GIB },
      reservations: 0,
      live_agents: 0,
      active_agents: 0,
      free_cores: null,
      eligible: true,
      reason: [],
    }),
  );
  await writeFile(join(state, 'samples.jsonl'), `${lines.join('\n')}\n{"ts_ms": 1, "bu`);
}

/**
 * `jobs` job items and records (every fourth ended: exit 0 or 2), `tickets` queued tickets and
 * `agents` agent children whose panes the local snapshot lists working, blocked or idle in turn.
 */
async function writeWork(jobs: number, tickets: number, agents = 0): Promise<void> {
  await mkdir(join(box.state, 'jobs'), { recursive: true, mode: 0o700 });
  const now = Date.now();
  const items = [];
  for (let i = 0; i < jobs; i++) {
    const id = `j_${String(i).padStart(3, '0')}`;
    const ended = i % 4 === 0;
    await writeFile(
      join(box.state, 'jobs', `${id}.json`),
      JSON.stringify(
        jobFixture({
          id,
          command: ['make', `target-${i}`],
          pane: `w2:p${i}`,
          created_ms: now - 60_000,
          started_ms: now - 50_000 + i,
          ended_ms: ended ? now - 1000 : null,
          exit_code: ended ? (i % 8 === 0 ? 0 : 2) : null,
        }),
      ),
    );
    items.push(
      itemFixture({ id: `i${i}`, job: id, pane: `w2:p${i}`, owner: OWNER, created_ms: now - 60_000 }),
    );
  }
  const states = ['working', 'blocked', 'idle'];
  const panes = [];
  for (let i = 0; i < agents; i++) {
    const pane = `w3:p${i}`;
    items.push(
      itemFixture({
        id: `a${i}`,
        kind: 'agent',
        pane,
        owner: OWNER,
        created_ms: now - 120_000,
        name: `agent-${i}`,
        harness: 'claude',
      }),
    );
    panes.push(agentPaneFixture(pane, states[i % 3] as string, now - 60_000, { model: 'opus' }));
  }
  if (agents > 0) {
    const snapshot = snapshotFixture({ sample_ms: now });
    snapshot.probe.agent_panes = panes;
    await writeSnapshot(box.state, snapshot);
  }
  const queue = Array.from({ length: tickets }, (_, i) =>
    ticketFixture({ id: `t_${i}`, owner: OWNER, created_ms: now - 30_000 + i }),
  );
  await writeFile(join(box.state, 'items.json'), JSON.stringify({ version: 1, items }));
  await writeFile(join(box.state, 'queue.json'), JSON.stringify({ version: 1, tickets: queue }));
}

interface Open {
  /** Another sandbox than the test's own (one with the fake Herdr), and the owner in it. */
  box?: Sandbox;
  owner?: string;
  height?: number;
  hosts?: SidebarHost[];
  env?: NodeJS.ProcessEnv;
}

async function openSidebar(options: Open = {}): Promise<Tmux> {
  const home = options.box ?? box;
  const env: NodeJS.ProcessEnv = {
    HOME: home.home,
    DOGSLED_STATE: home.state,
    TERM: 'xterm-256color',
    NCURSES_NO_UTF8_ACS: '1',
    LANG: 'C.UTF-8',
    PATH: process.env.PATH,
    HERDR_CONFIG_PATH: join(box.root, 'herdr-config.toml'),
    // No poll: every refresh these tests wait for comes from watching the files.
    DOGSLED_TEST: '1',
    DOGSLED_TEST_SIDEBAR_POLL_MS: '600000',
    ...(options.hosts ? { DOGSLED_TEST_SIDEBAR_HOSTS: await hostsFile(options.hosts) } : {}),
    ...options.env,
  };
  const screen = await server.open({
    dir: box.root,
    width: WIDTH,
    height: options.height ?? 45,
    argv: [process.execPath, CLI, 'sidebar', '--owner', options.owner ?? OWNER],
    env,
  });
  screens.push(screen);
  await screen.waitFor('the three panels', (rows) => rows.some((r) => r.includes('Agents & Jobs')));
  return screen;
}

/** SGR parameters that set a colour (30-38, 40-48, 90-97, 100-107); 39 and 49 reset to the default. */
function colourCodes(ansi: string): string[] {
  const found: string[] = [];
  for (const match of ansi.matchAll(/\u001b\[([0-9;]*)m/g)) {
    for (const param of (match[1] ?? '').split(';')) {
      const n = Number(param);
      if ((n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107)) {
        found.push(param);
      }
    }
  }
  return found;
}

const has = (text: string) => (rows: string[]) => rows.some((row) => row.includes(text));

describe.skipIf(!HAS_TMUX)('the sidebar in a 38-column terminal', () => {
  it('draws one host as a two-line card from the local snapshot and samples.jsonl, in three framed panels', async () => {
    const now = Date.now();
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: now, cores: 8, busy: 0.5 }));
    await writeSamples(box.state, now, [0.5, 0, 0.25, 0.5, null, 0.75, 1]);
    // Which modules the sidebar process loaded, written when it exits.
    const loaded = join(box.root, 'loaded.json');
    const preload = join(box.root, 'loaded.cjs');
    await writeFile(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const screen = await openSidebar({ env: { NODE_OPTIONS: `--require ${preload}` } });
    const rows = await screen.waitFor('the memory meter', has('mem '));
    expect(rows[0]).toMatch(/^┌─ Hosts 1 ─+┐$/);
    // The busy history oldest first, on a 0-100 scale, a gap where a sample had no CPU figure.
    expect(rows[1]).toMatch(/^│ local 4\/8 \? service down +▄▁▂▄ ▆█│$/);
    expect(rows[2]).toMatch(/^│ {2}mem █░░░ 48G free · disk 50% free +│$/);
    expect(rows.some((r) => /^┌─ ● Agents & Jobs 0 · w1:p1 ─+┐$/.test(r))).toBe(true);
    // No Todos panel without a publication: one dim line says where todos come from.
    expect(rows.some((r) => r.includes('Todos'))).toBe(false);
    expect(rows.some((r) => r.startsWith("│todos show here when Pi's todo list"))).toBe(true);
    expect(rows.at(-1)).toMatch(/^└─+┘$/);
    for (const row of rows) expect([...row].length).toBeLessThanOrEqual(WIDTH);

    // blessed-contrib's sparkline renderer is found beside its widget, whose module (like the package
    // index, which loads every widget, the map and markdown with theirs) is never loaded: it loads
    // all of blessed. Of blessed, the four widgets the board uses and what they need.
    await screen.keys('q');
    const files = await waitFor(
      'the sidebar to exit',
      async () => (await readFile(loaded, 'utf8').catch(() => undefined)) as string | undefined,
      { timeoutMs: 15_000 },
    );
    const modules = (JSON.parse(files) as string[])
      .filter((path) => path.includes('/node_modules/'))
      .map((path) => path.slice(path.lastIndexOf('/node_modules/') + '/node_modules/'.length));
    expect(modules.filter((path) => path.startsWith('blessed-contrib/'))).toEqual([]);
    expect([...new Set(modules.map((path) => path.split('/')[0]))].sort()).toEqual(['blessed', 'sparkline']);
    expect(modules).not.toContain('blessed/lib/blessed.js');
    expect(modules).not.toContain('blessed/lib/widgets/video.js');
  });

  it('draws 5 hosts as cards and folds 20 to one line each, with an unreachable host dimmed', async () => {
    const five = await openSidebar({ hosts: Array.from({ length: 5 }, (_, i) => fixtureHost(i)) });
    const rows = await five.waitFor('five hosts', has('peer-4'));
    expect(rows.filter((r) => r.includes(' mem ')).length).toBe(5);
    expect(rows.some((r) => /^│ peer-1 4\/16 +▁▂▄▆█▄│$/.test(r))).toBe(true);
    await five.kill();

    const twenty = Array.from({ length: 20 }, (_, i) =>
      fixtureHost(i, i === 3 ? { reachable: false, service: 'unknown', age_ms: 125_000 } : {}),
    );
    const many = await openSidebar({ hosts: twenty });
    const folded = await many.waitFor('twenty hosts', has('peer-3'));
    expect(folded.some((r) => /^│ peer-1 4\/16 free mem 39G disk 40% +│$/.test(r))).toBe(true);
    expect(folded.some((r) => /^│ peer-3 12\/16 \? no reply 2m/.test(r))).toBe(true);
    expect(folded.some((r) => /Hosts 20 1-\d+\/20/.test(r))).toBe(true);
    // The unreachable host is dimmed (overlay0, xterm 245 in dogsled-dark) where a reachable one has
    // the text colour (254) and green (114).
    const ansi = (await many.captureAnsi()).split('\n');
    const colours = (text: string) =>
      [...(ansi.find((line) => line.includes(text)) ?? '').matchAll(/38;5;(\d+)/g)]
        .map((m) => `5;${m[1]}`)
        .join(' ');
    expect(colours('peer-3')).toContain('5;245');
    expect(colours('peer-3')).not.toContain('5;254');
    expect(colours('peer-3')).not.toContain('5;114');
    expect(colours('peer-1')).toContain('5;254');
    expect(colours('peer-1')).toContain('5;114');
    // The wheel over the Hosts panel scrolls it.
    await many.literal(wheel(5, 2, 'down'));
    await many.waitFor('the hosts scrolled by the wheel', has('Hosts 20 2-'));
  });

  it('shows 50 agents, jobs and tickets grouped as the board groups them, in three-line cards', async () => {
    await writeWork(30, 10, 10);
    const screen = await openSidebar();
    const rows = await screen.waitFor('the board', has('ATTENTION'));
    expect(rows.some((r) => r.startsWith('┌─ ● Agents & Jobs 46 · w1:p1 1-'))).toBe(true);
    expect(rows.some((r) => /^│▾ ATTENTION 10 +│$/.test(r))).toBe(true);
    const blocked = rows.findIndex((r) => /^│[ ▌] blocked {2}agent-1 +│$/.test(r));
    expect(blocked).toBeGreaterThan(0);
    expect(rows[blocked + 1]).toMatch(/^│[ ▌] agent a1 · local w3:p1 +│$/);
    expect(rows[blocked + 2]).toMatch(/^│[ ▌] \d+[sm] · waiting for an answer +│$/);
    expect(rows.some((r) => /^│[ ▌] exit 2 {2}make target-4 +│$/.test(r))).toBe(true);
    expect(rows.some((r) => /^│[ ▌] job j_004 · local w2:p4 +│$/.test(r))).toBe(true);
    // Down to the end: WAITING cards carry their place in line, DONE stays folded.
    await screen.keys(...Array.from({ length: 50 }, () => 'Down'));
    const end = await screen.waitFor('the last ticket', has('#10 queued'));
    // Each says why it waits: no service runs here to admit it.
    expect(end.some((r) => r.includes('no service admits it here'))).toBe(true);
    expect(end.some((r) => /^│▸ DONE 4 +│$/.test(r))).toBe(true);
    // RUNNING holds 22 jobs and the 4 working agents. Space folds the selected card's group and
    // selects the first card shown: WAITING, then ATTENTION.
    await screen.keys('Space');
    await screen.waitFor('WAITING folded, the first card selected', has('▌ blocked  agent-1'));
    await screen.keys('Space');
    const running = await screen.waitFor('ATTENTION folded', has('▸ ATTENTION 10'));
    expect(running.some((r) => /^│▾ RUNNING 26 +│$/.test(r))).toBe(true);
  });

  it('reads a board the lean read doubts as board does: a job record that is not JSON is a problem line, the rest drawn', async () => {
    await writeWork(4, 1);
    await writeFile(join(box.state, 'jobs', 'j_001.json'), '{"id": "j_001", ');
    const screen = await openSidebar({ hosts: [fixtureHost(0)] });
    const rows = await screen.waitFor('the problem', has('! board: job j_001: job j_001:'));
    expect(rows.some((r) => r.includes('_001.json: not JSON: Expected'))).toBe(true);
    // The full reader's board: the item whose record it cannot read is open, its record missing.
    expect(rows.some((r) => r.startsWith('┌─ ● Agents & Jobs 4 · w1:p1'))).toBe(true);
    expect(rows.some((r) => /^│▌ \d+s · job record missing +│$/.test(r))).toBe(true);
    expect(rows.some((r) => /^│[ ▌] job j_002 · local w2:p2 +│$/.test(r))).toBe(true);
    expect(rows.some((r) => r.includes('#1 queued'))).toBe(true);
  });

  it('folds hosts by itself in a short pane, and unfolds them when the pane grows', async () => {
    const screen = await openSidebar({ height: 16, hosts: [fixtureHost(0), fixtureHost(1)] });
    const rows = await screen.waitFor('the hosts', has('peer-1'));
    expect(rows.filter((r) => r.includes(' mem █')).length).toBe(0);
    expect(rows.some((r) => /^│ local 0\/16 free mem 40G disk 40%/.test(r))).toBe(true);
    expect(rows).toHaveLength(16);
    await screen.resize(WIDTH, 45);
    const tall = await screen.waitFor('cards', (r) => r.filter((row) => row.includes(' mem █')).length === 2);
    expect(tall).toHaveLength(45);
    await screen.resize(WIDTH, 20);
    await screen.waitFor('folded again', (r) => r.length === 20 && !r.some((row) => row.includes(' mem █')));
  });

  it('updates the screen when a snapshot, the samples or the work change; a samples.jsonl that is not a file draws no sparkline', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now(), cores: 8, busy: 0 }));
    const samples = join(box.state, 'samples.jsonl');
    await mkdir(samples);
    // A state file that turns from a directory into a FIFO faster than chokidar looks can leave it
    // watching a directory that is gone: the poll is what reads it then, so this test keeps one.
    const screen = await openSidebar({ env: { DOGSLED_TEST_SIDEBAR_POLL_MS: '500' } });
    const first = await screen.waitFor('the first snapshot', has('local 0/8'));
    expect(first[1]).toMatch(/^│ local 0\/8 \? service down +│$/);
    await rm(samples, { recursive: true });
    execFileSync('mkfifo', [samples]);
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now(), cores: 8, busy: 0.75 }));
    const fifo = await screen.waitFor('the new snapshot, never blocked by the FIFO', has('local 6/8'));
    expect(fifo[1]).toMatch(/^│ local 6\/8 \? service down +│$/);
    await rm(samples);
    // Out-of-range figures are clamped to the scale.
    await writeSamples(box.state, Date.now(), [-5, 1e308, 0]);
    await screen.waitFor('the sparkline', (r) => /^│ local 6\/8 \? service down +▁█▁│$/.test(r[1] ?? ''));
    await writeWork(1, 0);
    await screen.waitFor('a new job', has('▸ DONE 1'));
  });
});

describe.skipIf(!HAS_TMUX)('sidebar todos', () => {
  const lines = (pane: string) => ({
    protocol: 3,
    session: 's1',
    branch: null,
    revision: 1,
    current: null,
    pane,
    sections: [
      { kind: 'progress', done: 1, total: 3 },
      { kind: 'now', title: 'NOW', lines: ['wire the \u001b[31mparser'] },
      { kind: 'next', title: 'NEXT', lines: ['tests'] },
      { kind: 'done', title: 'done', lines: ['plan'] },
    ],
  });

  it("shows the owner's publication as soon as Pi writes it, and says why a bad one is unavailable", async () => {
    const screen = await openSidebar();
    // No publication: no Todos panel, one dim line on where todos come from.
    const none = await screen.waitFor('the todos hint', has("todos show here when Pi's todo list"));
    expect(none.some((r) => r.includes('Todos'))).toBe(false);
    // The directory appears after the board opened, then the publication in it.
    const dir = join(box.state, 'todo-lines');
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${idHash(OWNER)}.json`);
    await writeFile(file, JSON.stringify(lines(OWNER)));
    const rows = await screen.waitFor('the todos', has('wire the parser'));
    expect(rows.some((r) => /^│▰▰▰▱▱▱▱▱▱▱ 1\/3 +│$/.test(r))).toBe(true);
    expect(rows.some((r) => /^│▸ done 1 +│$/.test(r))).toBe(true);
    await writeFile(file, JSON.stringify(lines('w9:p9')));
    await screen.waitFor('a publication for another pane', has('todos unavailable: published for'));
    // Put in place in one rename, as a writer replaces the publication: a FIFO made at the path right
    // after its removal is two events a loaded machine may report as one that changed nothing.
    execFileSync('mkfifo', [`${file}.fifo`]);
    await rename(`${file}.fifo`, file);
    await screen.waitFor('a FIFO refused without blocking', has('it is a FIFO'));
  });
});

describe.skipIf(!HAS_TMUX)('sidebar colours', () => {
  const accent = (hex: string) => `38;5;${blessed.colors.match(hex)}`;

  it.each([
    ['catppuccin', '#89b4fa', '#1e66f5', '#94e2d5'],
    ['catppuccin-latte', '#1e66f5', '#89b4fa', '#179299'],
  ])(
    'draws the focused panel in the %s accent and the sparkline in its teal',
    async (name, mine, other, teal) => {
      await writeFile(join(box.root, 'herdr-config.toml'), `[theme]\nname = "${name}"\n`);
      const screen = await openSidebar({ hosts: [fixtureHost(0)] });
      const ansi = await screen.captureAnsi();
      expect(ansi).toContain(accent(mine));
      expect(ansi).not.toContain(accent(other));
      const spark = ansi.split('\n').find((line) => line.includes('▁▂▄▆█▄')) ?? '';
      expect(spark).toContain(`${accent(teal)}m▁▂▄▆█▄`);
    },
  );

  it('applies [theme.custom] overrides', async () => {
    await writeFile(
      join(box.root, 'herdr-config.toml'),
      '[theme]\nname = "catppuccin"\n[theme.custom]\naccent = "#ff0000"\n',
    );
    const screen = await openSidebar();
    expect(await screen.captureAnsi()).toContain(accent('#ff0000'));
  });

  it('uses no colour with NO_COLOR, and still marks the focused panel', async () => {
    await writeWork(2, 1);
    const screen = await openSidebar({ env: { NO_COLOR: '1' }, hosts: [fixtureHost(0)] });
    await screen.waitFor('the board', has('RUNNING'));
    await screen.waitFor('the sparkline, without colour', has('▁▂▄▆█▄'));
    const ansi = await screen.captureAnsi();
    expect(colourCodes(ansi)).toEqual([]);
    expect(ansi).toContain('\u001b[1;7m'); // pills are bold and inverse instead
    expect(ansi).toContain('● Agents & Jobs');
  });
});

describe.skipIf(!HAS_TMUX)('sidebar keys and mouse', () => {
  it('tab cycles panels, space folds the focused one, arrows move the selection', async () => {
    await writeWork(6, 0);
    const screen = await openSidebar({ hosts: [fixtureHost(0)] });
    // Without a todo publication there is no Todos panel to tab to.
    await screen.keys('Tab');
    await screen.waitFor('Hosts focused', has('● Hosts'));
    await screen.keys('Space');
    await screen.waitFor('hosts folded', (rows) => !rows.some((r) => r.includes(' mem █')));
    await screen.keys('Tab');
    const before = await screen.waitFor('Agents focused', has('● Agents'));
    const selected = before.find((r) => r.startsWith('│▌ job'));
    await screen.keys('Down');
    const after = await screen.waitFor(
      'a new selection',
      (rows) => rows.find((r) => r.startsWith('│▌ job')) !== selected,
    );
    expect(after.filter((r) => r.startsWith('│▌')).length).toBe(3);
  });

  it('m opens the menu, which says why an action does not apply; stop asks first and stops the job', async () => {
    await mkdir(join(box.state, 'jobs'), { recursive: true });
    const { runCli } = await import('../../helpers/cli.js');
    const { holdServiceLock } = await import('../../helpers/service-holder.js');
    const { freshHost } = await import('../../helpers/run-fixtures.js');
    const lock = await holdServiceLock(box.state);
    try {
      await freshHost(box.state, true);
      const started = await runCli(['run', '--json', '--', 'sleep', '60'], {
        ...box.env,
        HERDR_PANE_ID: OWNER,
      });
      expect(started.code).toBe(0);
      const screen = await openSidebar();
      await screen.waitFor('the running job', has('running'));
      await screen.keys('m');
      const menu = await screen.waitFor('the menu', has('send - only agents take messages'));
      expect(menu.some((r) => r.includes('close - only agents are closed'))).toBe(true);
      await screen.keys('Down', 'Down', 'Down', 'Down', 'Enter');
      await screen.waitFor('the confirmation', has('Stop job'));
      await screen.keys('y');
      await screen.waitFor('the job stopped', has('▸ DONE 1'));
    } finally {
      await lock.release();
    }
  });

  it('cancel asks first, and y cancels the queued ticket', async () => {
    await writeWork(0, 2);
    const screen = await openSidebar({ hosts: [fixtureHost(0)] });
    await screen.waitFor('the two tickets', has('WAITING 2'));
    await screen.keys('m');
    await screen.waitFor('the menu', has('stop - only running jobs stop'));
    await screen.keys('Down', 'Down', 'Down', 'Down', 'Down', 'Enter');
    await screen.waitFor('the confirmation', has('Cancel ticket t_0? y/n'));
    await screen.keys('y');
    const rows = await screen.waitFor('the ticket cancelled', has('WAITING 1'));
    expect(rows.some((r) => /^│[ ▌] ticket t_1\b/.test(r))).toBe(true);
    expect(rows.some((r) => /^│[ ▌] ticket t_0\b/.test(r))).toBe(false);
  });

  it("a child's menu reads its final reply, sends a message to its inbox, and asks before close", async () => {
    const { t, lead, child } = await inboxPair();
    try {
      await registerClaude(t, child);
      const item = itemFixture({
        id: 'i_child',
        kind: 'agent',
        pane: child.pane,
        owner: lead.pane,
        created_ms: Date.now() - 60_000,
        job: null,
        name: 'fixer',
        harness: 'claude',
        reply: 'Fixed the parser.\u001b[31m',
      });
      await writeFile(join(t.box.state, 'items.json'), JSON.stringify({ version: 1, items: [item] }));
      const screen = await openSidebar({
        box: t.box,
        owner: lead.pane,
        hosts: [fixtureHost(0)],
        env: t.envOf(lead),
      });
      await screen.waitFor('the child card', has('fixer'));
      await screen.keys('m');
      const menu = await screen.waitFor('the menu', has('cancel - only tickets cancel'));
      expect(menu.some((r) => r.includes('close -') || r.includes('send -'))).toBe(false);
      await screen.keys('Enter');
      const read = await screen.waitFor('the final reply', has('Fixed the parser.'));
      expect(read.some((r) => r.includes('final reply:'))).toBe(true);
      await screen.keys('Escape');
      // send: a one-line box; what is typed reaches `dogsled send` on stdin, and the child's inbox.
      await screen.keys('m', 'Down', 'Enter');
      await screen.waitFor('the message box', has('message to fixer'));
      await screen.literal('hello child');
      await screen.keys('Enter');
      await screen.waitFor("dogsled send's answer", has(`sent m_`));
      const inbox = await t.inbox(child);
      expect(inbox.records).toEqual([
        expect.objectContaining({
          kind: 'message',
          text: 'hello child',
          sender: expect.objectContaining({ pane: lead.pane }),
        }),
      ]);
      await screen.keys('m', 'Down', 'Down', 'Down', 'Enter');
      await screen.waitFor('the confirmation', has(`Close fixer (${child.pane})? y/n`));
      await screen.keys('n');
      await screen.waitFor('the refusal kept', has('close: not done'));
      // ⏎ on a menu entry chose it, and nothing else: no pane was focused behind the menu.
      const calls = (await t.herdr.call('_fake.calls.list', {})).result.calls as Array<{ method: string }>;
      expect(calls.filter((call) => call.method === 'pane.focus')).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("⏎ and a double click focus the child's pane in Herdr, a single click only selects, the wheel moves", async () => {
    const t = await inboxBox();
    try {
      const lead = await t.newPane();
      const alpha = await t.newPane();
      const beta = await t.newPane();
      const now = Date.now();
      const child = (id: string, name: string, pane: string) =>
        itemFixture({ id, kind: 'agent', pane, owner: lead.pane, created_ms: now, job: null, name });
      await writeFile(
        join(t.box.state, 'items.json'),
        JSON.stringify({
          version: 1,
          items: [child('i_alpha', 'alpha', alpha.pane), child('i_beta', 'beta', beta.pane)],
        }),
      );
      const screen = await openSidebar({
        box: t.box,
        owner: lead.pane,
        hosts: [fixtureHost(0)],
        env: t.envOf(lead),
      });
      const rows = await screen.waitFor('the two children', has('beta'));
      const focused = async () => {
        const reply = await t.herdr.call('_fake.calls.list', {});
        return (reply.result.calls as Array<{ method: string; params: { pane_id?: string } }>)
          .filter((call) => call.method === 'pane.focus')
          .map((call) => call.params.pane_id);
      };
      const alphaRow = rows.findIndex((r) => r.includes('alpha'));
      const betaRow = rows.findIndex((r) => r.includes('beta'));
      await screen.literal(click(5, betaRow));
      await screen.waitFor('the clicked card selected', (r) => r[betaRow]?.startsWith('│▌') === true);
      await screen.literal(click(5, alphaRow) + click(5, alphaRow));
      await screen.waitFor('the double click focusing the pane', has(`switched to alpha (${alpha.pane})`));
      // The single click on beta focused nothing: only the double click asked Herdr.
      expect(await focused()).toEqual([alpha.pane]);
      const toBeta = alphaRow < betaRow ? 'Down' : 'Up';
      await screen.keys(toBeta);
      await screen.waitFor('beta selected', (r) => r[betaRow]?.startsWith('│▌') === true);
      await screen.keys('Enter');
      await waitFor('⏎ to focus the pane', async () => ((await focused()).length === 2 ? true : undefined), {
        timeoutMs: 15_000,
      });
      expect(await focused()).toEqual([alpha.pane, beta.pane]);
      await screen.literal(wheel(5, betaRow, toBeta === 'Down' ? 'up' : 'down'));
      await screen.waitFor('the wheel moved the selection', (r) => r[alphaRow]?.startsWith('│▌') === true);
    } finally {
      await t.close();
    }
  });

  it('⏎ without Herdr or tmux says so on the last line', async () => {
    await writeWork(2, 0);
    const screen = await openSidebar({ hosts: [fixtureHost(0)] });
    await screen.waitFor('the board', has('RUNNING'));
    await screen.keys('Enter');
    await screen.waitFor('the focus refusal', has('needs Herdr or tmux'));
  });
});
