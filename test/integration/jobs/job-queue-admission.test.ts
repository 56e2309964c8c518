// The service's admission worker end to end: a real `serve` on a fake /proc with room for 5, tickets
// queued at once, admissions in FIFO order with exactly one launch each, a cancel in the middle, and
// a service killed (SIGKILL) at each point of an admission: the restarted service settles the ticket
// from its job record (admitted when the job started, failed with the reason when not), never twice.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Ticket } from '../../../service/core/placement/queue-types.js';
import { ensureStateDir, statePaths } from '../../../service/state/paths.js';
import { listJobRecords, readJobRecord } from '../../../service/state/records/job-records.js';
import { runCli, type Sandbox } from '../../helpers/cli.js';
import { sandboxPerTest } from '../../helpers/serve-sandbox.js';
import { waitFor } from '../../helpers/wait.js';
import { theWarmOne } from '../../helpers/warm-supervisor.js';
import {
  appendTickets,
  items,
  roomFor5,
  startServe,
  ticketFixture,
  tickets,
  untilEligible,
} from './job-queue-fixtures.js';

let box: Sandbox;
const served = sandboxPerTest((made) => {
  box = made;
});
const { running } = served;

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
    const host = await roomFor5(box, 500, { facts: false });
    served.stopTicker = host.stop;
    const queued = queueOf(20, (i) => recordStart(`t${i}`));
    const order = queued.map((t) => t.id);
    await appendTickets(box, queued);
    // Cancelled before the service runs, so the cancel path always runs (not whichever side of a race
    // won) and the queue drains around a cancelled ticket in its middle.
    const cancelled = await runCli(['cancel', order[17]!, '--json'], host.env);
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ id: order[17], state: 'cancelled' });
    startServe(host.env, running);

    // Watch the queue while it drains: what has left `pending` is always a prefix of the FIFO order
    // (the cancelled ticket aside), so no ticket is ever admitted before an earlier one.
    const observations: string[][] = [];
    const final = await waitFor(
      'every ticket settled',
      async () => {
        const now = await tickets(box);
        observations.push(
          now.filter((t) => t.state !== 'pending' && t.state !== 'cancelled').map((t) => t.id),
        );
        return now.every(settled) ? now : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // A ticket the service has taken cannot be cancelled any more, and cancel says so in one line.
    const late = await runCli(['cancel', order[0]!, '--json'], host.env);
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(
      /^dogsled: cancel: ticket t_\d+ is admitted: cancel only cancels pending tickets\n$/,
    );
    const fifo = order.filter((id) => id !== order[17]);
    // queue.json keeps append order, which is the FIFO order here.
    for (const seen of observations) expect(seen).toEqual(fifo.slice(0, seen.length));

    const byId = new Map(final.map((t) => [t.id, t]));
    for (const id of fifo)
      expect(byId.get(id)).toMatchObject({ state: 'admitted', host: 'local', notice: 'pending' });
    expect(byId.get(order[17]!)).toMatchObject({ state: 'cancelled', job: null });

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
    const ran = await waitFor(
      'every job ran',
      async () => {
        const lines = await starts();
        return lines.length >= tags.length ? lines : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(ran.slice().sort()).toEqual(tags.slice().sort());
    await waitFor(
      'every item closed by its job end',
      async () =>
        (await items(box)).every((i) => i.close_reason === 'job ended (exit 0)') ? true : undefined,
      { timeoutMs: 15_000 },
    );
  });

  it('records an unknown pin or a launch failure on the ticket, admits the rest (a place ticket by its reservation) and drops day-old tickets', async () => {
    const host = await roomFor5(box, 60_000, { facts: false });
    served.stopTicker = host.stop;
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
    const final = await waitFor(
      'all settled',
      async () => {
        const now = await tickets(box);
        return now.length === 4 && now.every(settled) ? now : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(final[0]).toMatchObject({
      state: 'failed',
      error: 'unknown host "netcup"',
      notice: null,
      job: null,
    });
    expect(final[1]).toMatchObject({ state: 'failed', notice: 'pending', host: 'local' });
    // The cause is the missing directory, not the spawn error it would surface as (item 15).
    expect(final[1]?.error).toBe(
      `cannot launch job ${final[1]?.job} on local: directory ${missing} does not exist`,
    );
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
  });
});

describe("a queued job's environment", () => {
  it('is kept 0600 beside the queue, never in it, and reaches the job the service admits', async () => {
    const host = await roomFor5(box, 600_000, { facts: false });
    served.stopTicker = host.stop;
    startServe(host.env, running);
    await untilEligible(box);
    // Five placements fill the host, so the run queues.
    for (let i = 0; i < 5; i++) expect((await runCli(['place', '--json'], host.env)).code).toBe(0);
    const out = join(box.root, 'out');
    const secret = 'queued-secret-4be1d';
    const queued = await runCli(
      ['run', '--json', '--cwd', box.root, '--', 'sh', '-c', `printf %s "$QUEUED_TOKEN" > ${out}`],
      { ...host.env, QUEUED_TOKEN: secret },
    );
    expect(queued.code).toBe(1);
    const { ticket } = JSON.parse(queued.stdout) as { ticket: string };
    const envFile = join(box.state, 'tickets', `${ticket}.env`);
    expect((await stat(envFile)).mode & 0o777).toBe(0o600);
    expect(await readFile(join(box.state, 'queue.json'), 'utf8')).not.toContain(secret);
    expect((await runCli(['status', '--json'], host.env)).stdout).not.toContain(secret);

    // Room again: the service admits the ticket, and the job sees the caller's variable. The
    // supervisor the service keeps warm runs it.
    const warm = await theWarmOne(box.state);
    await writeFile(join(box.state, 'placements.json'), '{"version":1,"reservations":[]}\n');
    await waitFor(
      'the admitted job wrote the variable',
      async () => ((await readFile(out, 'utf8').catch(() => '')) === secret ? true : undefined),
      { timeoutMs: 20_000 },
    );
    // The job can write before the worker records its ticket admitted (the warm supervisor starts
    // it at once): wait for the ticket, not for the output alone.
    const admitted = await waitFor(
      'the ticket admitted',
      async () => (await tickets(box)).find((t) => t.id === ticket && t.state === 'admitted'),
      { timeoutMs: 20_000 },
    );
    expect(admitted).toMatchObject({ state: 'admitted' });
    expect(await readJobRecord(statePaths(box.state), admitted?.job as string)).toMatchObject({
      wrapper_pid: warm,
    });
    // Both copies are gone once the job started.
    await waitFor(
      'the environment files removed',
      async () => {
        const left = [envFile, join(box.state, 'jobs', `${admitted?.job}.env`)];
        const present = await Promise.all(
          left.map((file) =>
            stat(file).then(
              () => true,
              () => false,
            ),
          ),
        );
        return present.every((p) => !p) ? true : undefined;
      },
      { timeoutMs: 10_000 },
    );
  });
});

describe('a ticket environment file that is not a regular file', () => {
  it('fails that ticket in one line without hanging the service, which admits the next', async () => {
    const host = await roomFor5(box, 60_000, { facts: false });
    served.stopTicker = host.stop;
    const [fifo, fine] = queueOf(2, (i) => recordStart(`t${i}`));
    await mkdir(join(box.state, 'tickets'), { recursive: true });
    execFileSync('mkfifo', [join(box.state, 'tickets', `${fifo!.id}.env`)]);
    await appendTickets(box, [fifo!, fine!]);
    startServe(host.env, running);
    const final = await waitFor(
      'both settled',
      async () => {
        const now = await tickets(box);
        return now.every(settled) ? now : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(final[0]).toMatchObject({ state: 'failed' });
    expect(final[0]?.error).toMatch(/tickets\/t_0+\.env is not a regular file$/);
    expect(final[1]).toMatchObject({ state: 'admitted' });
    await waitFor('the next job ran', async () => ((await starts()).length > 0 ? true : undefined), {
      timeoutMs: 15_000,
    });
    expect(await starts()).toEqual(['t1']);
  });

  it('a tickets path that is a file never holds admission up', async () => {
    const host = await roomFor5(box, 60_000, { facts: false });
    served.stopTicker = host.stop;
    await ensureStateDir(box.state);
    await writeFile(join(box.state, 'tickets'), 'not a directory\n');
    const [ticket] = queueOf(1, () => recordStart('despite'));
    await appendTickets(box, [ticket!]);
    startServe(host.env, running);
    await waitFor(
      'the ticket admitted',
      async () => ((await tickets(box))[0]?.state === 'admitted' ? true : undefined),
      { timeoutMs: 20_000 },
    );
    await waitFor('the job ran', async () => ((await starts()).length > 0 ? true : undefined), {
      timeoutMs: 15_000,
    });
  });
});

describe('a service killed in the middle of an admission', () => {
  /** A ticket's reservation, if placements.json still holds it. */
  async function reserved(id: string | null): Promise<boolean> {
    const placements = JSON.parse(await readFile(join(box.state, 'placements.json'), 'utf8'));
    return placements.reservations.some((r: { id: string }) => r.id === id);
  }

  /**
   * Starts a service that pauses its admission at `point`, queues one job ticket, waits for
   * `reached`, SIGKILLs the service there and starts another. Returns the ticket as it was then.
   */
  async function killedAt(
    point: 'before-launch' | 'after-record' | 'after-launch',
    reached: (ticket: Ticket) => Promise<boolean>,
  ): Promise<{ admitting: Ticket; pid: number; ticket: Ticket }> {
    const host = await roomFor5(box, 60_000, { facts: false });
    served.stopTicker = host.stop;
    const pause = { DOGSLED_TEST_ADMISSION_PAUSE_MS: '30000', DOGSLED_TEST_ADMISSION_PAUSE_AT: point };
    const first = startServe({ ...host.env, ...pause }, running);
    await untilEligible(box);
    const [ticket] = queueOf(1, () => recordStart('interrupted'));
    await appendTickets(box, [ticket!]);
    const admitting = await waitFor(
      `an admission paused at ${point}`,
      async () => {
        const [now] = await tickets(box);
        if (now?.state !== 'admitting' || now.job === null) return undefined;
        return (await reached(now)) ? now : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(admitting.admitter).toMatchObject({ pid: first.pid });
    // The admission is stuck in its pause; the service still publishes its snapshot meanwhile.
    const published = await sampleMs();
    await waitFor('a new snapshot', async () => ((await sampleMs()) > published ? true : undefined), {
      timeoutMs: 10_000,
    });
    first.kill('SIGKILL');
    await waitFor(
      'the frozen serve to be killed',
      async () => first.exitCode !== null || first.signalCode !== null || undefined,
    );
    startServe(host.env, running);
    return { admitting, pid: first.pid!, ticket: ticket! };
  }

  async function settledTicket(id: string): Promise<Ticket> {
    return waitFor(
      'the interrupted ticket settled',
      async () => (await tickets(box)).find((t) => t.id === id && t.state !== 'admitting'),
      { timeoutMs: 20_000 },
    );
  }

  /** A later ticket is admitted, and the interrupted one still has exactly its one job (or none). */
  async function noRelaunch(ticket: Ticket, job: string | null): Promise<void> {
    const [next] = queueOf(1);
    await appendTickets(box, [{ ...next!, id: 't_after_restart' }]);
    await waitFor(
      'a later ticket admitted',
      async () => (await tickets(box)).find((t) => t.id === 't_after_restart' && t.state === 'admitted'),
      { timeoutMs: 20_000 },
    );
    expect((await jobsByTicket()).get(ticket.id)).toEqual(job === null ? undefined : [job]);
  }

  it('killed after the start: the ticket is admitted, its job runs once and ends its reservation', async () => {
    const paths = statePaths(box.state);
    const { admitting, ticket } = await killedAt('after-launch', async (now) => {
      const record = await readJobRecord(paths, now.job!).catch(() => undefined);
      return record?.started_ms != null;
    });
    const admitted = await settledTicket(ticket.id);
    expect(admitted).toMatchObject({
      state: 'admitted',
      job: admitting.job,
      item: admitting.item,
      error: null,
      notice: 'pending',
    });
    await noRelaunch(ticket, admitting.job);
    await waitFor('the job ran', async () => ((await starts()).length > 0 ? true : undefined), {
      timeoutMs: 15_000,
    });
    expect(await starts()).toEqual(['interrupted']);
    const record = await waitFor(
      'the job ended',
      async () => {
        const now = await readJobRecord(paths, admitting.job!);
        return now.ended_ms === null ? undefined : now;
      },
      { timeoutMs: 15_000 },
    );
    expect(record).toMatchObject({ exit_code: 0, reason: null, reservation: admitting.reservation });
    expect(await reserved(admitting.reservation)).toBe(false);
  });

  it('killed after the record, before exec: the record ends at once with its reason and nothing runs', async () => {
    const paths = statePaths(box.state);
    const { admitting, pid, ticket } = await killedAt('after-record', async (now) => {
      // The record is there and the claim's reservation holds the room.
      const record = await readJobRecord(paths, now.job!).catch(() => undefined);
      return record !== undefined && (await reserved(now.reservation));
    });
    const reason = `never started: the service (pid ${pid}) stopped while launching it`;
    const failed = await settledTicket(ticket.id);
    expect(failed).toMatchObject({
      state: 'failed',
      job: admitting.job,
      error: `${admitting.job}: ${reason}`,
    });
    expect(await readJobRecord(paths, admitting.job!)).toMatchObject({
      started_ms: null,
      ended_ms: expect.any(Number),
      reason,
    });
    expect(await reserved(admitting.reservation)).toBe(false);
    // The caller's environment, written beside the record, is gone with the launch.
    expect(existsSync(join(box.state, 'jobs', `${admitting.job}.env`))).toBe(false);
    await waitFor(
      'its item closed',
      async () =>
        (await items(box)).find((i) => i.id === admitting.item)?.closed_ms != null ? true : undefined,
      { timeoutMs: 15_000 },
    );
    await noRelaunch(ticket, admitting.job);
    expect(await starts()).toEqual([]);
  });

  it('killed before the launch: the ticket fails saying nothing ran, and its room is given back', async () => {
    const { admitting, pid, ticket } = await killedAt('before-launch', (now) => reserved(now.reservation));
    const failed = await settledTicket(ticket.id);
    expect(failed).toMatchObject({
      state: 'failed',
      job: admitting.job,
      error: `admission interrupted: the service (pid ${pid}) stopped before ${admitting.job} was created; nothing ran`,
    });
    expect(await reserved(admitting.reservation)).toBe(false);
    await noRelaunch(ticket, null);
    expect(await starts()).toEqual([]);
  });
});
