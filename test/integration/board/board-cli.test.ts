import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { BoardSchema } from '../../../service/board/board-schema.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { itemFixture, jobFixture, ticketFixture } from '../../helpers/job-fixtures.js';
import { freshHost } from '../../helpers/run-fixtures.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { waitFor } from '../../helpers/wait.js';

const OWNER = 'w1:p1';
let box: Sandbox;

beforeEach(async () => {
  // HERDR_PANE_ID without a reachable Herdr: jobs run headless, owned by this pane.
  box = await sandbox({ HERDR_PANE_ID: OWNER });
});
afterEach(async () => box.cleanup());

async function board(args: string[] = ['--json']) {
  const result = await runCli(['board', ...args], box.env);
  return result;
}

function rowsOf(stdout: string) {
  const parsed = BoardSchema.parse(JSON.parse(stdout));
  return parsed.groups.flatMap((g) =>
    g.rows.map((r) => ({ group: g.id, id: r.id, state: r.state, place: r.place })),
  );
}

describe('dogsled board', () => {
  it("groups the caller's jobs and tickets by what the owner must do, as one JSON document", async () => {
    const lock = await holdServiceLock(box.state);
    onTestFinished(() => lock.release());
    await freshHost(box.state, true);
    const failed = await runCli(['run', '--wait', '--', 'sh', '-c', 'exit 3'], box.env);
    expect(failed.code).toBe(3);
    const started = await runCli(['run', '--json', '--', 'sleep', '30'], box.env);
    expect(started.code).toBe(0);
    const running = JSON.parse(started.stdout).job as string;
    await freshHost(box.state, false);
    const queued = await runCli(['run', '--json', '--', 'make', 'lint'], box.env);
    expect(queued.code).toBe(1);
    const ticket = JSON.parse(queued.stdout).ticket as string;

    // exec marks the job started a moment after run returns: wait for that settled state.
    const result = await waitFor(
      'the job running',
      async () => {
        const read = await board();
        return read.stdout.includes('"state":"running"') ? read : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const rows = rowsOf(result.stdout);
    expect(rows).toEqual([
      { group: 'attention', id: expect.any(String), state: 'exit 3', place: null },
      { group: 'running', id: running, state: 'running', place: null },
      { group: 'waiting', id: ticket, state: 'queued', place: 1 },
    ]);
    await runCli(['stop', running], box.env);

    const human = await board([]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^board of w1:p1 · 1 attention · 1 waiting · 1 done\n/);
    expect(human.stdout).toMatch(/^ATTENTION\n {2}job \S+ +exit 3 .*sh -c 'exit 3'\n {25}exited 3$/m);
    expect(human.stdout).toMatch(/^WAITING\n {2}ticket \S+ +queued #1 .*make lint$/m);
    expect(human.stdout).toMatch(/^DONE {2}1 ended well/m);
    for (const line of human.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('shows another owner with --owner, and nothing of the caller there', async () => {
    await mkdir(box.state, { recursive: true });
    const now = Date.now();
    await writeFile(
      join(box.state, 'items.json'),
      JSON.stringify({
        version: 1,
        items: [itemFixture({ id: 'i1', owner: 'w7:p2', job: 'j_other', created_ms: now })],
      }),
    );
    await mkdir(join(box.state, 'jobs'), { recursive: true });
    await writeFile(
      join(box.state, 'jobs', 'j_other.json'),
      JSON.stringify(jobFixture({ id: 'j_other', owner: 'w7:p2', started_ms: now, command: ['make', 'x'] })),
    );
    expect(rowsOf((await board(['--json', '--owner', 'w7:p2'])).stdout)).toEqual([
      { group: 'running', id: 'j_other', state: 'running', place: null },
    ]);
    expect(rowsOf((await board()).stdout)).toEqual([]);
  });

  it('keeps hostile commands, errors and owners escape-free', async () => {
    await mkdir(join(box.state, 'jobs'), { recursive: true });
    const now = Date.now();
    const evil = '\u001b]0;owned\u0007\u001b[2J';
    await writeFile(
      join(box.state, 'queue.json'),
      JSON.stringify({
        version: 1,
        tickets: [
          ticketFixture({
            id: 't_bad',
            owner: `w1:${evil}`,
            state: 'failed',
            error: `boom ${evil}`,
            state_ms: now,
          }),
        ],
      }),
    );
    const result = await board(['--owner', `w1:${evil}`]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(result.stdout).toContain('boom');
  });

  it('refuses without an owner, and names a state file that is not a file, in one line and exit 2', async () => {
    const env = { ...box.env };
    delete env.HERDR_PANE_ID;
    const orphan = await runCli(['board'], env);
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toBe(
      'dogsled: board: no owner: run it in a Herdr or tmux pane (HERDR_PANE_ID, TMUX_PANE) or give --owner PANE\n',
    );
    await mkdir(join(box.state, 'items.json'), { recursive: true });
    const broken = await board();
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toMatch(/^dogsled: board: .*items\.json.*a directory.*\n$/);
  });

  it('refuses --open and --toggle together', async () => {
    const result = await board(['--open', '--toggle']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('dogsled: board: choose one of --open and --toggle\n');
  });
});
