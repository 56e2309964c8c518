// An owner's afternoon, written as the service and the CLI would leave it, for the sidebar's screen
// tests: a child whose branch has a commit to land, a job that exited 3, a blocked child, a running
// job and a ticket second in line, on a host whose busy CPU leaves no room. The sidebar runs in a
// private tmux at a given size, its text read back with capture-pane.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLI, type Sandbox } from '../../helpers/cli.js';
import { itemFixture, jobFixture, ticketFixture } from '../../helpers/job-fixtures.js';
import { agentPaneFixture, snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import type { Tmux, TmuxServer } from '../../helpers/tmux.js';
import { waitFor } from '../../helpers/wait.js';

export const OWNER = 'w1:p1';
export const FAILED_JOB = 'j_4kq2m7xa9d3b';
export const RUNNING_JOB = 'j_2dorb5ei3pss';
export const QUEUED = 't_x8d2k4m1q9za';

/** What the owner must act on, each as the screen must show it whole (lines joined by a space). */
export const FACTS = {
  toLand: '+1 to land parser',
  branch: 'branch feat/',
  failed: `exit 3 sh -c 'exit 3'`,
  failedWhy: 'exited 3',
  blocked: 'blocked reviewer',
  blockedWhy: 'waiting for an answer',
  queued: '#2 queued make lint',
};

/** `samples.jsonl` lines, one a minute for `minutes`, busy rising and memory half used. */
export async function writeHistory(state: string, now: number, minutes: number): Promise<void> {
  const GIB = 1024 ** 3;
  const lines = Array.from({ length: minutes }, (_, i) =>
    JSON.stringify({
      ts_ms: now - (minutes - i) * 60_000,
      cores: 2,
      busy: (i % 30) / 30,
      load1: 1,
      memory: { total_bytes: 16 * GIB, used_bytes: 8 * GIB, free_bytes: 8 * GIB },
      pressure_level: null,
      disk: { total_bytes: 100 * GIB, free_bytes: 40 * GIB },
      reservations: 0,
      live_agents: 0,
      active_agents: 0,
      free_cores: null,
      eligible: true,
      reason: [],
    }),
  );
  await writeFile(join(state, 'samples.jsonl'), `${lines.join('\n')}\n`);
}

/** The afternoon's state files in `state` at `now`. */
export async function writeAfternoon(state: string, now: number): Promise<void> {
  await mkdir(join(state, 'jobs'), { recursive: true, mode: 0o700 });
  const failed = jobFixture({
    id: FAILED_JOB,
    command: ['sh', '-c', 'exit 3'],
    pane: 'w2:p7',
    created_ms: now - 300_000,
    started_ms: now - 290_000,
    ended_ms: now - 120_000,
    exit_code: 3,
  });
  const running = jobFixture({
    id: RUNNING_JOB,
    command: ['npm', 'run', 'test:integration', '--', '--reporter=verbose'],
    pane: 'w2:p8',
    created_ms: now - 200_000,
    started_ms: now - 190_000,
  });
  for (const job of [failed, running]) {
    await writeFile(join(state, 'jobs', `${job.id}.json`), JSON.stringify(job));
  }
  const items = [
    itemFixture({ id: 'i_failed', job: FAILED_JOB, pane: 'w2:p7', created_ms: now - 300_000 }),
    itemFixture({ id: 'i_running', job: RUNNING_JOB, pane: 'w2:p8', created_ms: now - 200_000 }),
    itemFixture({
      id: 'i_reviewer',
      kind: 'agent',
      pane: 'w3:p1',
      job: null,
      created_ms: now - 600_000,
      name: 'reviewer',
      harness: 'pi',
    }),
    itemFixture({
      id: 'i_parser',
      kind: 'agent',
      pane: null,
      job: null,
      created_ms: now - 900_000,
      closed_ms: now - 60_000,
      close_reason: 'done',
      name: 'parser',
      harness: 'claude',
      // Started with --branch: only such a child has a TO LAND row (core/inbox/to-land-rule.ts).
      branch: 'feat/parser-rewrite-with-property-tests',
    }),
  ];
  await writeFile(join(state, 'items.json'), JSON.stringify({ version: 1, items }));
  const tickets = [
    ticketFixture({ id: 't_other', owner: 'w9:p9', created_ms: now - 60_000 }),
    ticketFixture({
      id: QUEUED,
      created_ms: now - 20_000,
      request: {
        command: ['make', 'lint'],
        cwd: '/tmp',
        timeout_ms: null,
        idle_timeout_ms: null,
        caller_workspace: null,
      },
    }),
  ];
  await writeFile(join(state, 'queue.json'), JSON.stringify({ version: 1, tickets }));
  const branches = [
    {
      item: 'i_parser',
      child: 'parser',
      host: 'local',
      repository: '/repo',
      branch: 'feat/parser-rewrite-with-property-tests',
      ahead: 1,
      dirty: false,
      landed: false,
      observed_ms: now - 30_000,
    },
  ];
  await writeFile(join(state, 'branches.json'), JSON.stringify({ version: 1, branches }));
  // Two cores, 95% busy: no room for the ticket (placement wants half the cores free).
  const snapshot = snapshotFixture({
    sample_ms: now,
    cores: 2,
    busy: 0.95,
    memoryTotalGiB: 16,
    memoryFreeGiB: 8,
  });
  // The host's jobs as the service publishes them (job summaries of its records).
  snapshot.jobs = [failed, running].map(({ timeout_ms, idle_timeout_ms, version, ...job }) => job);
  snapshot.probe.agent_panes = [
    agentPaneFixture('w3:p1', 'blocked', now - 90_000, { model: 'anthropic/claude-sonnet-4-5' }),
  ];
  await writeSnapshot(state, snapshot);
}

export interface OpenSidebar {
  server: TmuxServer;
  box: Sandbox;
  width: number;
  height: number;
  owner?: string;
  env?: NodeJS.ProcessEnv;
  preload?: string;
  /** The CLI's entry (default: this checkout's build). */
  cli?: string;
  /**
   * Return once the frame written ahead of blessed shows, not once blessed has taken over (its
   * mouse reporting on): for the tests of that frame.
   */
  ahead?: boolean;
}

/** `dogsled sidebar` in a fresh screen of `server`, once its first frame is drawn. */
export async function openSidebar(options: OpenSidebar): Promise<Tmux> {
  const { box } = options;
  const screen = await options.server.open({
    dir: box.root,
    width: options.width,
    height: options.height,
    argv: [process.execPath, options.cli ?? CLI, 'sidebar', '--owner', options.owner ?? OWNER],
    env: {
      HOME: box.home,
      DOGSLED_STATE: box.state,
      TERM: 'xterm-256color',
      NCURSES_NO_UTF8_ACS: '1',
      LANG: 'C.UTF-8',
      PATH: process.env.PATH,
      HERDR_CONFIG_PATH: join(box.root, 'herdr-config.toml'),
      // No poll: every refresh these tests wait for comes from watching the files.
      DOGSLED_TEST: '1',
      DOGSLED_TEST_SIDEBAR_POLL_MS: '600000',
      ...options.env,
    },
  });
  await screen.waitFor('the first frame', (rows) => rows.some((r) => r.includes('Agents & Jobs')));
  // The board is up once blessed has it (the frame written ahead shows before): a test then acts
  // where a person would, with keys live and the app's state read.
  if (!options.ahead) {
    await waitFor('blessed to take the screen over', async () =>
      (await screen.format('#{mouse_any_flag}')) === '1' ? true : undefined,
    );
  }
  return screen;
}

/** The inner text of the panel titled `title` (frame and the card mark column cut off). */
export function panelText(rows: readonly string[], title: string): string[] {
  const top = rows.findIndex((r) => r.startsWith('┌') && r.includes(title));
  if (top < 0) return [];
  const out: string[] = [];
  for (const row of rows.slice(top + 1)) {
    if (row.startsWith('└')) break;
    out.push(row.slice(1, -1));
  }
  return out;
}

/** Lines joined as one text, runs of spaces (padding, wrapped lines, the mark column) made one. */
export function flat(lines: readonly string[]): string {
  return lines
    .map((l) => l.replace(/^▌/, ' '))
    .join(' ')
    .replace(/\s+/g, ' ');
}
