// Dismissing an ATTENTION row: `dogsled board --dismiss ID` and the sidebar's `d` mark it seen for its
// owner, so it moves to DONE; the job's record is not touched (`wait` still reports its exit); the
// same job failing anew (a new end) shows again. board-seen.json is a state file like any other: a
// directory or a FIFO in its place is refused in one line, a corrupt one is set aside, and two
// dismissals never lose each other, even with one frozen inside the file's lock.

import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BoardSchema } from '../../../service/board/board-schema.js';
import { inspectLock } from '../../../service/state/engine/lock.js';
import { BoardSeenSchema } from '../../../service/state/schemas/sidebar-schemas.js';
import { exited, runCli, type Sandbox, sandbox, spawnCli } from '../../helpers/cli.js';
import { lockUnrefreshedFor, stopInLock, stoppedItself } from '../../helpers/frozen-lock.js';
import { itemFixture, jobFixture } from '../../helpers/job-fixtures.js';
import { startTmux, type Tmux, type TmuxServer } from '../../helpers/tmux.js';
import { tempDir } from '../../helpers/tree.js';
import { FAILED_JOB, flat, OWNER, openSidebar, RUNNING_JOB, writeAfternoon } from './sidebar-fixtures.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
let box: Sandbox;
let server: TmuxServer | undefined;
const screens: Tmux[] = [];

beforeAll(async () => {
  if (HAS_TMUX) server = await startTmux(await tempDir('dogsled-tmux-'), `bd${process.pid}`);
});
afterAll(async () => server?.kill());
beforeEach(async () => {
  box = await sandbox({ HERDR_PANE_ID: OWNER });
});
afterEach(async () => {
  for (const screen of screens.splice(0)) await screen.kill();
  await box.cleanup();
});

const record = () => readFile(join(box.state, 'jobs', `${FAILED_JOB}.json`), 'utf8');

async function groups() {
  const result = await runCli(['board', '--json'], box.env);
  expect(result.code).toBe(0);
  const board = BoardSchema.parse(JSON.parse(result.stdout));
  return Object.fromEntries(board.groups.map((g) => [g.id, g.rows.map((r) => `${r.id} ${r.state}`)]));
}

describe('board --dismiss', () => {
  it('moves a failed job to DONE for its owner, leaves its record alone, and says so once', async () => {
    await writeAfternoon(box.state, Date.now());
    const before = await record();
    const done = await runCli(['board', '--dismiss', FAILED_JOB], box.env);
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout).toBe(
      `job ${FAILED_JOB} (exit 3, sh -c 'exit 3') seen: moved to DONE on the board of ${OWNER}\n`,
    );
    expect(await record()).toBe(before);
    const now = await groups();
    expect(now.attention).toEqual(['i_reviewer blocked']);
    expect(now.done).toEqual([`${FAILED_JOB} exit 3`]);
    const human = await runCli(['board'], box.env);
    expect(human.stdout).toContain('DONE  1 seen (dogsled ps --all)');
    // The job itself still ended with 3, whoever has seen it.
    expect((await runCli(['wait', FAILED_JOB], box.env)).code).toBe(3);
    // Again: nothing changes, and it says so.
    const again = await runCli(['board', '--dismiss', 'i_failed', '--json'], box.env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ kind: 'job', id: FAILED_JOB, already: true });
    const seen = BoardSeenSchema.parse(
      JSON.parse(await readFile(join(box.state, 'board-seen.json'), 'utf8')),
    );
    expect(seen.seen).toHaveLength(1);
  });

  it('shows the same job again when it fails anew, and refuses rows outside ATTENTION or not there', async () => {
    const now = Date.now();
    await writeAfternoon(box.state, now);
    expect((await runCli(['board', '--dismiss', FAILED_JOB], box.env)).code).toBe(0);
    expect((await groups()).done).toEqual([`${FAILED_JOB} exit 3`]);
    // The same job id ends again, later and otherwise: a new failure, not the one that was seen.
    const rerun = jobFixture({
      id: FAILED_JOB,
      command: ['sh', '-c', 'exit 4'],
      created_ms: now - 10_000,
      started_ms: now - 9_000,
      ended_ms: now - 1_000,
      exit_code: 4,
    });
    await writeFile(join(box.state, 'jobs', `${FAILED_JOB}.json`), JSON.stringify(rerun));
    expect((await groups()).attention).toEqual(['i_reviewer blocked', `${FAILED_JOB} exit 4`]);

    const running = await runCli(['board', '--dismiss', RUNNING_JOB], box.env);
    expect(running).toMatchObject({ code: 2, stdout: '' });
    expect(running.stderr).toBe(
      `dogsled: board: job ${RUNNING_JOB} is in RUNNING: only ATTENTION rows are dismissed\n`,
    );
    const missing = await runCli(['board', '--dismiss', 'j_nope'], box.env);
    expect(missing).toMatchObject({
      code: 2,
      stderr: `dogsled: board: no row j_nope on the board of ${OWNER}\n`,
    });
    const both = await runCli(['board', '--dismiss', FAILED_JOB, '--open'], box.env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--dismiss');
  });

  it('refuses a board-seen.json that is a directory or a FIFO in one line, and sets a corrupt one aside', async () => {
    await writeAfternoon(box.state, Date.now());
    const file = join(box.state, 'board-seen.json');
    await mkdir(file);
    const dir = await runCli(['board', '--dismiss', FAILED_JOB], box.env);
    expect(dir.code).toBe(2);
    expect(dir.stderr.trim().split('\n')).toHaveLength(1);
    expect(dir.stderr).toContain(`${file}: it is a directory`);
    // Reading the board still works; it says why no dismissal could be read.
    const read = await runCli(['board', '--json'], box.env);
    expect(read.code).toBe(0);
    expect(read.stderr).toContain('board-seen.json');
    await import('node:fs/promises').then(({ rm }) => rm(file, { recursive: true }));
    spawnSync('mkfifo', [file]);
    const fifo = await runCli(['board', '--dismiss', FAILED_JOB], box.env, { timeoutMs: 10_000 });
    expect(fifo.code).toBe(2);
    expect(fifo.stderr).toContain('it is a FIFO');
    await import('node:fs/promises').then(({ rm }) => rm(file));
    await writeFile(file, '{"version": 1, "seen": [{"owner": 3}]}');
    const corrupt = await runCli(['board', '--dismiss', FAILED_JOB], box.env);
    expect(corrupt.code).toBe(0);
    expect(corrupt.stderr).toMatch(/board-seen\.json was corrupt .*moved to board-seen\.json\.bad-\d+/);
    expect((await groups()).done).toEqual([`${FAILED_JOB} exit 3`]);
  });

  it('keeps both of two dismissals when the first is frozen inside the lock', async () => {
    const now = Date.now();
    await writeAfternoon(box.state, now);
    // A second failed job to dismiss beside the first.
    await writeFile(
      join(box.state, 'jobs', 'j_second.json'),
      JSON.stringify(
        jobFixture({ id: 'j_second', ended_ms: now - 5_000, started_ms: now - 6_000, exit_code: 1 }),
      ),
    );
    const items = JSON.parse(await readFile(join(box.state, 'items.json'), 'utf8'));
    items.items.push(itemFixture({ id: 'i_second', job: 'j_second', created_ms: now - 7_000 }));
    await writeFile(join(box.state, 'items.json'), JSON.stringify(items));
    const env = {
      ...box.env,
      DOGSLED_TEST: '1',
      DOGSLED_TEST_LOCK_STALE_MS: '1000',
    };
    const first = spawnCli(
      ['board', '--dismiss', FAILED_JOB],
      { ...env, ...stopInLock('board-seen.json') },
      { timeoutMs: 60_000 },
    );
    try {
      await stoppedItself(first.child.pid);
      const second = spawnCli(['board', '--dismiss', 'j_second'], env, { timeoutMs: 60_000 });
      // Until the frozen lock is three stale windows old: a waiter that judged the lock by its age
      // would have broken it by then.
      await lockUnrefreshedFor(join(box.state, 'board-seen.json'), 3_000);
      expect(second.child.exitCode).toBeNull();
      expect((await inspectLock(join(box.state, 'board-seen.json')))?.owner?.pid).toBe(first.child.pid);
      first.child.kill('SIGCONT');
      expect((await first.done).code).toBe(0);
      expect((await second.done).code).toBe(0);
    } finally {
      first.child.kill('SIGCONT');
      first.child.kill('SIGKILL');
      await exited(first.child);
    }
    expect((await groups()).done?.sort()).toEqual([`${FAILED_JOB} exit 3`, 'j_second exit 1']);
  });
});

describe.skipIf(!HAS_TMUX)('the sidebar dismisses with d', () => {
  it('moves the selected ATTENTION card to DONE and says so; on another card it says why not', async () => {
    await writeAfternoon(box.state, Date.now());
    const before = await record();
    const screen = await openSidebar({ server: server as TmuxServer, box, width: 38, height: 40 });
    screens.push(screen);
    await screen.waitFor('the board', (r) => r.some((l) => l.includes('TO LAND')));
    await screen.keys('d');
    await screen.waitFor('the refusal on TO LAND', (r) =>
      flat(r).includes('only ATTENTION rows are dismissed'),
    );
    await screen.keys('Down');
    await screen.waitFor('the failed job selected', (r) => r.some((l) => l.startsWith('│▌ exit 3')));
    await screen.keys('d');
    const rows = await screen.waitFor('the job in DONE', (r) => r.some((l) => l.includes('DONE 1 (1 seen)')));
    expect(flat(rows)).toContain(`job ${FAILED_JOB} (exit 3) seen: moved to DONE`);
    expect(rows.some((l) => /^│▾ ATTENTION 1 +│$/.test(l))).toBe(true);
    expect(await record()).toBe(before);
    expect((await groups()).done).toEqual([`${FAILED_JOB} exit 3`]);
  });
});
