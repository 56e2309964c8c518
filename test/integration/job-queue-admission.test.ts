// The service's admission worker end to end: a real `serve` on a fake /proc with room for 5, tickets
// queued at once, admissions in FIFO order with exactly one launch each, a cancel in the middle, and
// a service killed (SIGKILL) in the middle of an admission that leaves an explicit failed ticket.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listJobRecords, readJobRecord } from '../../service/state/job-records.js';
import { statePaths } from '../../service/state/paths.js';
import type { Ticket } from '../../service/state/work-schemas.js';
import { eventually, runCli, type Sandbox, sandbox, type startCli } from '../helpers/cli.js';
import {
  appendTickets,
  items,
  killAll,
  roomFor5,
  startServe,
  ticketFixture,
  tickets,
  untilEligible,
} from './job-queue-fixtures.js';

let box: Sandbox;
let stopTicker: () => void = () => undefined;
const running: Array<ReturnType<typeof startCli>> = [];

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  stopTicker();
  await killAll(running);
  await box.cleanup();
});

const settled = (t: Ticket) => t.state === 'admitted' || t.state === 'failed' || t.state === 'cancelled';

/** Tickets queued at once, created a millisecond apart so their FIFO order is plain. */
function queueOf(n: number, command: (i: number) => string[] = () => ['true']): Ticket[] {
  const base = Date.now();
  return Array.from({ length: n }, (_, i) =>
    ticketFixture({
      id: `t_${String(i).padStart(12, '0')}`,
      created_ms: base + i,
      state_ms: base + i,
      request: {
        command: command(i),
        cwd: box.root,
        timeout_ms: null,
        idle_timeout_ms: null,
        caller_workspace: null,
      },
    }),
  );
}

/** A job command that records its start: one line naming `tag` in starts.log. */
function recordStart(tag: string): string[] {
  return ['sh', '-c', `echo ${tag} >> ${join(box.root, 'starts.log')}`];
}

async function starts(): Promise<string[]> {
  const text = await readFile(join(box.root, 'starts.log'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

async function sampleMs(): Promise<number> {
  return JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8')).sample_ms;
}

async function jobsByTicket(): Promise<Map<string, string[]>> {
  const { records } = await listJobRecords(statePaths(box.state));
  const map = new Map<string, string[]>();
  for (const record of records) {
    const key = record.ticket ?? '';
    map.set(key, [...(map.get(key) ?? []), record.id]);
  }
  return map;
}

describe('admission of a queue by a running service', () => {
  it('admits 20 tickets to a host with room for 5 in FIFO order, each launched exactly once', async () => {
    const host = await roomFor5(box, 500);
    stopTicker = host.stop;
    startServe(host.env, running);
    await untilEligible(box);

    const queued = queueOf(20, (i) => recordStart(`t${i}`));
    const order = queued.map((t) => t.id);
    await appendTickets(box, queued);
    const cancelled = await runCli(['cancel', order[17]!, '--json'], host.env);

    // Watch the queue while it drains: what has left `pending` is always a prefix of the FIFO order
    // (the cancelled ticket aside), so no ticket is ever admitted before an earlier one.
    const observations: string[][] = [];
    const final = await eventually(
      async () => {
        const now = await tickets(box);
        observations.push(
          now.filter((t) => t.state !== 'pending' && t.state !== 'cancelled').map((t) => t.id),
        );
        return now.every(settled) ? now : undefined;
      },
      60_000,
      'every ticket settled',
    );
    if (cancelled.code === 0) {
      expect(JSON.parse(cancelled.stdout)).toMatchObject({ id: order[17], state: 'cancelled' });
    } else {
      // The service was quicker: the ticket had left pending, and cancel said so in one line.
      expect(cancelled.code).toBe(2);
      expect(cancelled.stderr).toMatch(
        /^dogsled: cancel: ticket t_\d+ is (admitting|admitted): cancel only cancels pending tickets\n$/,
      );
    }
    const fifo = order.filter((id) => cancelled.code !== 0 || id !== order[17]);
    // queue.json keeps append order, which is the FIFO order here.
    for (const seen of observations) expect(seen).toEqual(fifo.slice(0, seen.length));

    const byId = new Map(final.map((t) => [t.id, t]));
    for (const id of fifo)
      expect(byId.get(id)).toMatchObject({ state: 'admitted', host: 'local', notice: 'pending' });
    if (cancelled.code === 0) expect(byId.get(order[17]!)).toMatchObject({ state: 'cancelled', job: null });

    // Exactly one job record per admitted ticket, with the ids the ticket named before its launch,
    // created in admission order.
    const jobs = await jobsByTicket();
    const { records } = await listJobRecords(statePaths(box.state));
    const created = new Map(records.map((r) => [r.id, r.created_ms]));
    let last = 0;
    for (const id of fifo) {
      const ticket = byId.get(id)!;
      expect(jobs.get(id)).toEqual([ticket.job]);
      const at = created.get(ticket.job!)!;
      expect(at).toBeGreaterThanOrEqual(last);
      last = at;
    }
    expect([...jobs.keys()].sort()).toEqual([...fifo].sort());
    const jobItems = await items(box);
    expect(jobItems.map((i) => i.ticket).sort()).toEqual([...fifo].sort());
    for (const item of jobItems) expect(item.id).toBe(byId.get(item.ticket!)!.item);

    // Every admitted job ran exactly once, and the service closed its item when it ended.
    const tags = fifo.map((id) => `t${order.indexOf(id)}`);
    const ran = await eventually(
      async () => {
        const lines = await starts();
        return lines.length >= tags.length ? lines : undefined;
      },
      30_000,
      'every job ran',
    );
    expect(ran.slice().sort()).toEqual(tags.slice().sort());
    await eventually(
      async () =>
        (await items(box)).every((i) => i.close_reason === 'job ended (exit 0)') ? true : undefined,
      15_000,
      'every item closed by its job end',
    );
  }, 90_000);

  it('records an unknown pin or a launch failure on the ticket, admits the rest (a place ticket by its reservation) and drops day-old tickets', async () => {
    const host = await roomFor5(box, 60_000);
    stopTicker = host.stop;
    startServe(host.env, running);
    await untilEligible(box);
    const [pinned, broken, fine, place] = queueOf(4);
    const missing = join(box.root, 'no-such-dir');
    await appendTickets(box, [
      { ...pinned!, pin: 'netcup', waiting: true },
      { ...broken!, request: { ...broken!.request!, cwd: missing } },
      fine!,
      // A `place` ticket: admitted by its reservation alone, no job.
      { ...place!, kind: 'place', request: null },
      // Settled more than a day ago: the service drops it.
      ticketFixture({ id: 't_yesterday', state: 'admitted', state_ms: Date.now() - 25 * 3_600_000 }),
    ]);
    const final = await eventually(
      async () => {
        const now = await tickets(box);
        return now.length === 4 && now.every(settled) ? now : undefined;
      },
      20_000,
      'all settled',
    );
    expect(final[0]).toMatchObject({
      state: 'failed',
      error: 'unknown host "netcup"',
      notice: null,
      job: null,
    });
    expect(final[1]).toMatchObject({ state: 'failed', notice: 'pending', host: 'local' });
    expect(final[1]?.error).toMatch(/^cannot launch job j_[a-z2-7]{12} on local: .*no-such-dir/);
    expect(final[2]).toMatchObject({ state: 'admitted' });
    expect(final[3]).toMatchObject({
      state: 'admitted',
      kind: 'place',
      host: 'local',
      job: null,
      item: null,
    });
    const placements = JSON.parse(await readFile(join(box.state, 'placements.json'), 'utf8'));
    expect(placements.reservations.map((r: { id: string }) => r.id)).toContain(final[3]!.reservation);
    // The failed launch ended its record and closed its item: nothing is left looking alive.
    const record = await readJobRecord(statePaths(box.state), final[1]!.job!);
    expect(record.reason).toMatch(/^launch failed: /);
    expect((await items(box)).find((i) => i.id === final[1]!.item)?.close_reason).toBe('launch failed');
  }, 40_000);
});

describe('a service killed in the middle of an admission', () => {
  it('leaves an explicit failed ticket after restart, and the job is never launched again', async () => {
    const host = await roomFor5(box, 60_000);
    stopTicker = host.stop;
    const first = startServe({ ...host.env, DOGSLED_TEST_ADMISSION_PAUSE_MS: '30000' }, running);
    await untilEligible(box);
    const [ticket] = queueOf(1, () => recordStart('interrupted'));
    await appendTickets(box, [ticket!]);

    // Launched (its exec wrapper claimed the record) but not yet marked admitted: kill the service there.
    const admitting = await eventually(
      async () => {
        const [now] = await tickets(box);
        if (now?.state !== 'admitting' || now.job === null) return undefined;
        const record = await readJobRecord(statePaths(box.state), now.job).catch(() => undefined);
        return record?.started_ms != null ? now : undefined;
      },
      20_000,
      'an admission in progress',
    );
    expect(admitting.admitter).toMatchObject({ pid: first.pid });
    // The admission is stuck in its pause; the service still publishes its snapshot meanwhile.
    const published = await sampleMs();
    await eventually(
      async () => ((await sampleMs()) > published ? true : undefined),
      10_000,
      'a new snapshot',
    );
    first.kill('SIGKILL');
    await eventually(async () => first.exitCode !== null || first.signalCode !== null || undefined);

    startServe(host.env, running);
    const failed = await eventually(
      async () => {
        const [now] = await tickets(box);
        return now?.state === 'failed' ? now : undefined;
      },
      20_000,
      'the interrupted ticket failed',
    );
    expect(failed).toMatchObject({
      id: ticket!.id,
      job: admitting.job,
      item: admitting.item,
      notice: 'pending',
    });
    expect(failed.error).toBe(
      `admission interrupted: the service stopped while admitting it (service pid ${first.pid}); ` +
        `job ${admitting.job} may have started: inspect it, nothing is relaunched`,
    );

    // The new service admits new work, and the interrupted ticket still has its one job.
    const [next] = queueOf(1);
    await appendTickets(box, [{ ...next!, id: 't_after_restart' }]);
    await eventually(
      async () => (await tickets(box)).find((t) => t.id === 't_after_restart' && t.state === 'admitted'),
      20_000,
      'a later ticket admitted',
    );
    const jobs = await jobsByTicket();
    expect(jobs.get(ticket!.id)).toEqual([admitting.job]);
    expect((await tickets(box)).find((t) => t.id === ticket!.id)?.state).toBe('failed');
    // Its job ran once (it was launched before the kill) and was never launched again.
    await eventually(async () => ((await starts()).length > 0 ? true : undefined), 15_000, 'the job ran');
    expect(await starts()).toEqual(['interrupted']);
  }, 60_000);
});
