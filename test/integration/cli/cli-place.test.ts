import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlacedSchema } from '../../../cli/output-schemas.js';
import { StatusReportSchema } from '../../../service/hosts/view-schemas.js';
import type { StateIO } from '../../../service/state/io.js';
import { statePaths } from '../../../service/state/paths.js';
import { changeTicket, readQueue } from '../../../service/state/records/queue-items.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { PlacementsSchema } from '../../../service/state/schemas/host-schemas.js';
import { QueueSchema } from '../../../service/state/schemas/queue-items-schemas.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';

const NOW = 1_900_000_000_000;
let box: Sandbox;
let lock: ServiceLock | undefined;

const at = (ms: number): NodeJS.ProcessEnv => ({
  ...box.env,
  DOGSLED_TEST: '1',
  DOGSLED_TEST_NOW_MS: String(ms),
});

beforeEach(async () => {
  box = await sandbox();
  // 8 idle cores; the default policy wants 2 free, and each reservation takes 1: room for 7.
  await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 1_000, cores: 8, busy: 0 }));
  lock = await holdServiceLock(box.state);
});

afterEach(async () => {
  await lock?.release();
  await box.cleanup();
});

async function placements() {
  return PlacementsSchema.parse(JSON.parse(await readFile(join(box.state, 'placements.json'), 'utf8')));
}

function eventuallyPending(io: StateIO): Promise<string> {
  return waitFor(
    'a pending ticket',
    async () => (await readQueue(io)).tickets.find((t) => t.state === 'pending')?.id,
  );
}

async function statusAt(ms: number) {
  return StatusReportSchema.parse(JSON.parse((await runCli(['status', '--json'], at(ms))).stdout)).hosts[0]!;
}

describe('place', () => {
  it('reserves on the local host, and the reservation reduces headroom until its TTL', async () => {
    const result = await runCli(['place', '--json'], { ...at(NOW), HERDR_PANE_ID: 'w1:p2' });
    expect(result.code).toBe(0);
    const placed = JSON.parse(result.stdout);
    PlacedSchema.parse(placed);
    expect(placed).toEqual({
      placed: true,
      host: 'local',
      label: 'local',
      reservation: expect.stringMatching(/^r_[a-z2-7]{12}$/),
      expires_ms: NOW + 90_000,
    });
    expect((await placements()).reservations).toEqual([
      { id: placed.reservation, created_ms: NOW, expires_ms: NOW + 90_000, owner: 'w1:p2' },
    ]);

    const during = await statusAt(NOW + 89_999);
    expect(during.reservations.map((r) => r.id)).toEqual([placed.reservation]);
    expect(during.headroom).toMatchObject({ reservations: 1, measured: 7, declared: 7, free_cores: 7 });

    const after = await statusAt(NOW + 90_000);
    expect(after.reservations).toEqual([]);
    expect(after.headroom).toMatchObject({ reservations: 0, free_cores: 8 });
  });

  it('prints a human line without --json', async () => {
    const result = await runCli(['place'], at(NOW));
    expect(result.stdout).toMatch(/^reserved local \(local\) for 90s: r_[a-z2-7]{12}\n$/);
  });

  it('uses reservation_ttl_ms from the config', async () => {
    await writeFile(box.configPath, 'reservation_ttl_ms = "5m"\n');
    const placed = JSON.parse((await runCli(['place', '--json'], at(NOW))).stdout);
    expect(placed.expires_ms).toBe(NOW + 300_000);
  });

  it('drops expired reservations when it writes a new one', async () => {
    await runCli(['place'], at(NOW));
    await runCli(['place'], at(NOW + 1_000));
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW + 90_000, cores: 8, busy: 0 }));
    expect((await runCli(['place'], at(NOW + 90_500))).code).toBe(0);
    const kept = (await placements()).reservations.map((r) => r.created_ms);
    expect(kept).toEqual([NOW + 1_000, NOW + 90_500]);
  });

  it('pins by id or label and refuses an unknown host naming the known ones', async () => {
    expect((await runCli(['place', '--host', 'local'], at(NOW))).code).toBe(0);
    const unknown = await runCli(['place', '--host', 'netcup', '--json'], at(NOW));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('dogsled: place: unknown host "netcup" (known: local)\n');
  });

  it('queues a ticket when the host has no room, saying why, and queues later callers behind it', async () => {
    await writeSnapshot(
      box.state,
      snapshotFixture({ sample_ms: NOW - 1_000, cores: 8, busy: 0.9, diskFreePercent: 5 }),
    );
    // Without --json, one human line (as `run` and `agent` print), nothing on stderr.
    const human = await runCli(['place'], { ...at(NOW), HERDR_PANE_ID: 'w1:p2' });
    expect({ code: human.code, stderr: human.stderr }).toEqual({ code: 1, stderr: '' });
    const line = human.stdout.match(
      /^queued as (t_[a-z2-7]{12}): no host has room \(local: disk: 5\.0% free, needs 15%; cpu: 0\.8 free cores, needs 2\.0\); the service reserves its room when a host has room \(dogsled cancel \1 drops it\)\n$/,
    );
    expect(line, human.stdout).not.toBeNull();
    const first = { ticket: line?.[1] as string };
    // Room comes back, but the first ticket still waits: a later caller queues behind it (FIFO).
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 1_000, cores: 8, busy: 0 }));
    const json = await runCli(['place', '--json'], at(NOW));
    expect(json.code).toBe(1);
    const second = JSON.parse(json.stdout);
    expect(second).toEqual({ queued: true, ticket: expect.stringMatching(/^t_[a-z2-7]{12}$/) });
    expect(json.stderr).toBe(
      `dogsled: place: queued as ${second.ticket}: 1 earlier ticket waits for the same host\n`,
    );
    const queue = QueueSchema.parse(JSON.parse(await readFile(join(box.state, 'queue.json'), 'utf8')));
    expect(queue.tickets.map((t) => [t.id, t.kind, t.state, t.owner, t.request])).toEqual([
      [first.ticket, 'place', 'pending', 'w1:p2', null],
      [second.ticket, 'place', 'pending', null, null],
    ]);
    await expect(readFile(join(box.state, 'placements.json'))).rejects.toThrow();
  });

  it('--wait prints the placement once the service admits the ticket, and --max ends a wait with 124', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 1_000, cores: 8, busy: 0.9 }));
    // --max counts from the process's start: leave room for start-up before the wait itself.
    const short = await runCli(['place', '--wait', '--max', '2s'], at(NOW));
    expect(short.code).toBe(124);
    // A human wait prints what it ends with; the ticket is named on stderr as soon as it is queued.
    expect(short.stdout).toBe('still running\n');
    const stale = short.stderr.match(
      /^dogsled: place: queued as (t_[a-z2-7]{12}): [^\n]+; waiting for its admission\n/,
    )?.[1] as string;
    expect(short.stderr).toContain(`ticket ${stale} stays queued; dogsled cancel ${stale} drops it`);
    const io = { paths: statePaths(box.state), now: () => NOW, warn: () => {} };
    await changeTicket(io, stale, (t) => ({ ...t, state: 'cancelled', state_ms: NOW }));

    const waiting = runCli(['place', '--wait', '--json'], at(NOW));
    const ticket = await eventuallyPending(io);
    // The test plays the service: the reservation, then the admitted ticket that names it.
    const reservation = { id: 'r_admittedbyus', created_ms: NOW, expires_ms: NOW + 90_000, owner: null };
    await writeFile(
      join(box.state, 'placements.json'),
      JSON.stringify({ version: 1, reservations: [reservation] }),
    );
    await changeTicket(io, ticket, (t) => ({
      ...t,
      state: 'admitted',
      state_ms: NOW,
      host: 'local',
      reservation: reservation.id,
    }));
    const done = await waiting;
    expect(done.code).toBe(0);
    // One document: the placement, naming the ticket it came through.
    expect(JSON.parse(done.stdout)).toEqual({
      placed: true,
      host: 'local',
      label: 'local',
      reservation: reservation.id,
      expires_ms: NOW + 90_000,
      ticket,
    });
  });

  it('queues when the service is down, however fresh the snapshot', async () => {
    await lock?.release();
    lock = undefined;
    const result = await runCli(['place'], at(NOW));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('service down');
  });

  it('quarantines a corrupt placements.json with one warning and still places', async () => {
    await writeFile(join(box.state, 'placements.json'), '[oops');
    const result = await runCli(['place', '--json'], at(NOW));
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^dogsled: warning: placements\.json .*placements\.json\.bad-\d+\n$/);
    expect((await readdir(box.state)).some((f) => f.startsWith('placements.json.bad-'))).toBe(true);
    expect((await placements()).reservations).toHaveLength(1);
  });

  it('refuses --branch without Herdr or tmux in one line, writing nothing', async () => {
    const repo = join(box.root, 'repo');
    await mkdir(repo);
    execFileSync('git', ['init', '-q', repo]);
    const result = await runCli(['place', '--branch', 'feat/x', '--json'], at(NOW), { cwd: repo });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: place needs Herdr or tmux \([^\n]+\)\n$/);
    await expect(readFile(join(box.state, 'placements.json'))).rejects.toThrow();
  });
});

describe('concurrent placement', () => {
  it('32 place processes against room for 7 make exactly 7 reservations; the rest queue', async () => {
    const results = await Promise.all(
      Array.from({ length: 32 }, () => runCli(['place', '--json'], at(NOW), { timeoutMs: 60_000 })),
    );
    const placed = results.filter((r) => r.code === 0);
    const queued = results.filter((r) => r.code === 1);
    expect(placed).toHaveLength(7);
    expect(queued).toHaveLength(25);
    // The first caller to find no room says why; every later one waits behind an earlier ticket.
    for (const r of queued) expect(r.stderr).toMatch(/cpu: 1\.0 free cores, needs 2\.0|earlier ticket/);
    const tickets = queued.map((r) => JSON.parse(r.stdout).ticket);
    expect(new Set(tickets).size).toBe(25);
    const ids = placed.map((r) => JSON.parse(r.stdout).reservation);
    expect(new Set(ids).size).toBe(7);
    expect((await placements()).reservations.map((r) => r.id).sort()).toEqual([...ids].sort());
  }, 90_000);
});
