// Real commands frozen with SIGSTOP while they hold a lock, for longer than the stale window
// (shortened to 1 s for the test through DOGSLED_TEST_LOCK_STALE_MS), then resumed: nothing anyone
// was told is lost, and a second caller waits instead of taking the lock. The frozen `place` pauses
// between reading and writing its file (DOGSLED_TEST_LOCK_HOLD_*), the worst moment to be frozen.

import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectLock } from '../../../service/state/engine/lock.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { HostSnapshotSchema, PlacementsSchema } from '../../../service/state/schemas/host-schemas.js';
import { QueueSchema } from '../../../service/state/schemas/queue-items-schemas.js';
import { exited, runCli, type Sandbox, sandbox, spawnCli, startCli } from '../../helpers/cli.js';
import { lockUnrefreshedFor, stopInLock, stoppedItself } from '../../helpers/frozen-lock.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';

const STALE_MS = 1_000;
/** Well past the stale window: a waiter that still judged by mtime alone would break the lock. */
const FROZEN_MS = 3 * STALE_MS;

let box: Sandbox;
let lock: ServiceLock | undefined;
const children: ChildProcess[] = [];

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited(child);
  }
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

function testEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...box.env, DOGSLED_TEST: '1', DOGSLED_TEST_LOCK_STALE_MS: String(STALE_MS), ...extra };
}

/** A command with its own stdout, stderr and exit, stopped by afterEach if still running. */
function start(args: string[], env: NodeJS.ProcessEnv) {
  const started = spawnCli(args, env, { timeoutMs: 60_000 });
  children.push(started.child);
  return started;
}

/** Starts `place --json` that pauses inside `file`'s lock, and stops it (SIGSTOP) right there. */
async function frozenPlace(file: string) {
  const first = start(['place', '--json'], testEnv(stopInLock(file)));
  await stoppedItself(first.child.pid);
  expect((await inspectLock(join(box.state, file)))?.owner?.pid).toBe(first.child.pid);
  return first;
}

/**
 * A place stopped inside `file`'s lock for longer than the stale window, then a second place, which
 * must still be waiting when the first resumes; returns both results once they have exited.
 */
async function secondBehindFrozen(file: string) {
  const first = await frozenPlace(file);
  await lockUnrefreshedFor(join(box.state, file), 2 * STALE_MS);
  const second = start(['place', '--json'], testEnv());
  // Long enough for the second to start and try the lock again and again past the stale window: a
  // waiter that judged by age alone would have broken it (no event marks a waiter's attempts).
  await sleep(FROZEN_MS);
  // The second caller is still waiting for the frozen holder, not writing over it.
  expect(second.child.exitCode).toBeNull();
  first.child.kill('SIGCONT');
  return Promise.all([first.done, second.done]);
}

describe('a place stopped inside its lock for longer than the stale window', () => {
  it('keeps its lock: a second place waits, and both reservations stand', async () => {
    // 8 idle cores and a running service: room for 7 reservations.
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now(), cores: 8, busy: 0 }));
    lock = await holdServiceLock(box.state);
    const [a, b] = await secondBehindFrozen('placements.json');
    expect(a).toMatchObject({ code: 0, stderr: '' });
    expect(b).toMatchObject({ code: 0, stderr: '' });
    const ids = [JSON.parse(a.stdout).reservation, JSON.parse(b.stdout).reservation];
    const file = PlacementsSchema.parse(
      JSON.parse(await readFile(join(box.state, 'placements.json'), 'utf8')),
    );
    expect(file.reservations.map((r) => r.id).sort()).toEqual(ids.sort());
  });

  it('keeps its lock on queue.json: both queued tickets stand', async () => {
    // No service: every place becomes a ticket.
    const [a, b] = await secondBehindFrozen('queue.json');
    expect(a.code).toBe(1);
    expect(b.code).toBe(1);
    const ids = [JSON.parse(a.stdout).ticket, JSON.parse(b.stdout).ticket];
    const queue = QueueSchema.parse(JSON.parse(await readFile(join(box.state, 'queue.json'), 'utf8')));
    expect(queue.tickets.map((t) => t.id).sort()).toEqual(ids.sort());
  });
});

describe('a place frozen past its own deadline', () => {
  it('reports the deadline and writes nothing afterwards: no ticket that nobody was told of', async () => {
    // No service: the place would queue a ticket; it is stopped after reading queue.json.
    const first = start(['place', '--json', '--max', '5s'], testEnv(stopInLock('queue.json')));
    await stoppedItself(first.child.pid);
    expect((await inspectLock(join(box.state, 'queue.json')))?.owner?.pid).toBe(first.child.pid);
    // Past both its pause inside the lock and its --max: on resume both are due.
    await sleep(6_000);
    first.child.kill('SIGCONT');
    const a = await first.done;
    expect(a.code).toBe(2);
    expect(a.stdout).toBe('');
    expect(a.stderr.trim().split('\n')).toEqual([expect.stringContaining('placement exceeded its deadline')]);
    const queue = await readFile(join(box.state, 'queue.json'), 'utf8').catch(() => undefined);
    expect(queue === undefined ? [] : QueueSchema.parse(JSON.parse(queue)).tickets).toEqual([]);
    expect(await inspectLock(join(box.state, 'queue.json'))).toBeUndefined();
  });
});

describe('a serve stopped for longer than the stale window', () => {
  it('is still up with a stale snapshot (▲, not ?), and a second serve does not take its lock', async () => {
    const env = testEnv();
    const serving = startCli(['serve', '--interval', '0.3'], env);
    children.push(serving);
    await waitFor(
      'a snapshot with a CPU sample',
      async () =>
        HostSnapshotSchema.parse(JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8'))).probe
          .busy !== null || undefined,
      { timeoutMs: 15_000 },
    );
    serving.kill('SIGSTOP');
    await lockUnrefreshedFor(join(box.state, 'service'), 2 * STALE_MS);
    const status = await runCli(['status', '--json'], env);
    expect(JSON.parse(status.stdout).hosts[0].service).toBe('up');
    // A minute later its snapshot is stale: not eligible, but still a running service.
    const later = { ...env, DOGSLED_TEST_NOW_MS: String(Date.now() + 60_000) };
    const line = await runCli(['status', '--line'], later);
    expect(line.stdout.trim()).toMatch(/^local \S+ ▲$/);
    const second = await runCli(['serve', '--interval', '0.3'], env);
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split('\n')).toEqual([
      expect.stringContaining(`serve: already running on this host (pid ${serving.pid}`),
    ]);
    serving.kill('SIGCONT');
    const before = HostSnapshotSchema.parse(JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8')));
    await waitFor(
      'the resumed serve to publish again',
      async () =>
        HostSnapshotSchema.parse(JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8'))).sample_ms >
          before.sample_ms || undefined,
      { timeoutMs: 15_000 },
    );
    serving.kill('SIGTERM');
    expect(await exited(serving)).toEqual({ code: 0, signal: null });
  });
});
