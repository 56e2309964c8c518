// Agent tickets through a real `serve` (fake /proc with room for 5) and the fake Herdr: `agent --wait`
// on a full host queues and is admitted FIFO with jobs, and the service launches an admitted agent
// exactly once, also when it is SIGKILLed in the middle of the launch (the restarted service settles
// the ticket from the launch record and never starts the child again).

import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Ticket } from '../../../service/core/placement/queue-types.js';
import { readReservations } from '../../../service/hosts/local-facts.js';
import { endReservations, reserveLocally } from '../../../service/hosts/reserve-room.js';
import { loadConfig } from '../../../service/state/config/config.js';
import { FAKE_AGENTS_BIN } from '../../fakes/agents/harness.js';
import { runCli, spawnCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { workIO } from '../jobs/job-queue-fixtures.js';
import {
  agentCalls,
  agentSuite,
  items,
  launchRecords,
  newLaunches,
  ok,
  quickTask,
  tickets,
} from './agent-fixtures.js';
import { sharedServe } from './agent-serve.js';

// One sandbox, fake Herdr and serve for the file, on a host with room for exactly 5 reservations.
// Reservations outlive any case (10 minutes): the host is full until the case frees it. Each case
// finds its tickets, items and launches by id, name or pane.
const suite = agentSuite({ serviceLock: false, share: 'state' });
const served = sharedServe(suite, { cores: 8, ttlMs: 600_000, intervalS: 1 });

/**
 * Fills the host with 5 reservations as `place` takes them (under the placements lock, refused on a
 * full host), after ending those the cases before left (their admitted children's); room comes back
 * when the test ends them (freeRoom).
 */
async function fill(): Promise<string[]> {
  const io = workIO(suite.box);
  const host = {
    ...io,
    env: suite.env,
    home: suite.box.home,
    config: await loadConfig(suite.box.configPath, true, suite.box.home),
  };
  // A child a case before admitted takes room while it lives (a loaded machine keeps the quick task
  // running longer): the host is filled once all 5 fit, so it is full by these reservations alone.
  return waitFor(
    'room for 5 reservations',
    async () => {
      await endReservations(
        io,
        (await readReservations(io)).map((r) => r.id),
      );
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const placed = await reserveLocally(host, suite.caller.pane);
        if (placed.kind !== 'placed') {
          await endReservations(io, ids);
          return undefined;
        }
        ids.push(placed.reservation.id);
      }
      expect((await reserveLocally(host, suite.caller.pane)).kind).toBe('full');
      return ids;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

/** The launch records of ticket `id`. */
async function recordsOf(id: string) {
  return (await launchRecords(suite)).filter((record) => record.ticket === id);
}

/** Room appears: the reservations end as a job's end ends its own, not when their TTL runs out. */
async function freeRoom(ids: readonly string[]): Promise<void> {
  expect(await endReservations(workIO(suite.box), ids)).toBe(ids.length);
}

describe('agent tickets', () => {
  it('agent --wait on a full host queues and is admitted FIFO with a job queued after it', async () => {
    const full = await fill();
    const waiting = spawnCli(
      ['agent', '--wait', '--json', '--kind', 'pi', '--name', 'queued-child', '--message', quickTask()],
      suite.env,
      { cwd: suite.scratch, timeoutMs: 60_000 },
    );
    const agentTicket = await waitFor(
      'the agent ticket',
      async () => (await tickets(suite)).find((t) => t.kind === 'agent' && t.agent?.name === 'queued-child'),
      { timeoutMs: 15_000 },
    );
    const job = await runCli(['run', '--json', '--cwd', suite.scratch, '--', 'true'], suite.env);
    expect(job.code).toBe(1);
    const jobTicket = JSON.parse(job.stdout).ticket as string;

    await freeRoom(full);
    const result = await waiting.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^dogsled: agent: queued as t_\w+: no host has room \([^\n]+\); waiting for its admission\n$/,
    );
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ queued: false, name: 'queued-child', ticket: agentTicket.id });
    const settled = await waitFor(
      'both tickets admitted',
      async () => {
        const all = await tickets(suite);
        const both = [all.find((t) => t.id === agentTicket.id), all.find((t) => t.id === jobTicket)];
        return both.every((t) => t?.state === 'admitted') ? (both as Ticket[]) : undefined;
      },
      { timeoutMs: 20_000 },
    );
    const [agentDone, jobDone] = settled as [Ticket, Ticket];
    // FIFO: the agent ticket came first, so it was claimed (and admitted) no later than the job.
    expect(agentDone.created_ms).toBeLessThan(jobDone.created_ms);
    expect(agentDone.state_ms).toBeLessThanOrEqual(jobDone.state_ms);
    expect((await items(suite)).find((i) => i.ticket === agentTicket.id)).toMatchObject({
      kind: 'agent',
      name: 'queued-child',
      launch: doc.launch,
    });
    expect(await newLaunches(suite)).toHaveLength(1);
  });

  it('a non-waiting agent on a full host prints its ticket and exits 1; the service starts it later', async () => {
    const full = await fill();
    const result = await runCli(
      ['agent', '--json', '--kind', 'claude', '--name', 'later', '--message', quickTask()],
      suite.env,
      { cwd: suite.scratch, timeoutMs: 30_000 },
    );
    expect(result.code).toBe(1);
    const ticket = JSON.parse(result.stdout).ticket as string;
    expect(result.stderr).toMatch(/^dogsled: agent: queued as t_\w+: no host has room/);
    await freeRoom(full);
    const admitted = await waitFor(
      'the admitted ticket',
      async () => (await tickets(suite)).find((t) => t.id === ticket && t.state === 'admitted'),
      { timeoutMs: 20_000 },
    );
    // The owner did not wait: its inbox hears of the admission (the notice is then delivered).
    const terminal = (await ok(suite.herdr, 'pane.get', { pane_id: suite.caller.pane })).pane.terminal_id;
    const inbox = await waitFor(
      'the admission in the owner inbox',
      async () => {
        const text = await readFile(join(suite.box.state, 'inbox', `${terminal}.json`), 'utf8').catch(
          () => '',
        );
        return text.includes(ticket) ? JSON.parse(text) : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(inbox.records).toContainEqual(
      expect.objectContaining({
        kind: 'admission',
        text: expect.stringContaining(`(agent later (claude)) was admitted on local`),
      }),
    );
    expect(admitted.notice === 'pending' || admitted.notice === 'delivered').toBe(true);
    expect(await recordsOf(ticket)).toEqual([
      expect.objectContaining({ ticket, state: 'started', name: 'later' }),
    ]);
  });
});

describe('a queued child that cannot be started', () => {
  it("fails its ticket after three tries and the owner's inbox says so (launch_failed)", async () => {
    const full = await fill();
    for (let i = 0; i < 3; i++) {
      await ok(suite.herdr, '_fake.fail_next', {
        method: 'agent.start',
        code: 'internal_error',
        message: `boom ${i}`,
      });
    }
    const result = await runCli(
      ['agent', '--json', '--kind', 'pi', '--name', 'doomed', '--message', quickTask()],
      suite.env,
      {
        cwd: suite.scratch,
        timeoutMs: 30_000,
      },
    );
    expect(result.code).toBe(1);
    const ticket = JSON.parse(result.stdout).ticket as string;
    await freeRoom(full);
    const failed = await waitFor(
      'the failed ticket',
      async () => (await tickets(suite)).find((t) => t.id === ticket && t.state === 'failed'),
      { timeoutMs: 40_000 },
    );
    expect(failed.error).toMatch(/cannot start agent doomed on local: internal_error: /);
    const terminal = (await ok(suite.herdr, 'pane.get', { pane_id: suite.caller.pane })).pane.terminal_id;
    const inbox = await waitFor(
      'the failure in the owner inbox',
      async () => {
        const text = await readFile(join(suite.box.state, 'inbox', `${terminal}.json`), 'utf8').catch(
          () => '',
        );
        return text.includes(`Ticket ${ticket} `) ? JSON.parse(text) : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(inbox.records).toContainEqual(
      expect.objectContaining({
        kind: 'launch_failed',
        text: expect.stringContaining(`Ticket ${ticket} (agent doomed (pi)) failed`),
      }),
    );
  });
});

describe("a child the service starts runs with its caller's PATH", () => {
  /**
   * A `claude` only the caller's PATH has: it leaves a mark, then runs the fake. Herdr's panes and
   * the service (as under the shipped systemd unit) find only the plain fake, or nothing.
   */
  async function callerBin(): Promise<{ dir: string; mark: string }> {
    const dir = join(suite.box.root, 'caller-bin');
    const mark = join(suite.box.root, 'caller-claude-ran');
    await mkdir(dir, { recursive: true });
    const claude = join(dir, 'claude');
    await writeFile(claude, `#!/bin/sh\necho "$$" >> '${mark}'\nexec '${FAKE_AGENTS_BIN}/claude' "$@"\n`);
    await chmod(claude, 0o755);
    return { dir, mark };
  }

  async function ticketEnvs(): Promise<string[]> {
    return readdir(join(suite.box.state, 'tickets')).catch(() => [] as string[]);
  }

  it('a queued child: its ticket keeps the PATH (only it), and the admitted child runs the harness found there', async () => {
    const { dir, mark } = await callerBin();
    const full = await fill();
    const caller = { ...suite.env, PATH: `${dir}:${suite.env.PATH}`, SECRET_TOKEN: 'not-for-the-child' };
    const queued = await runCli(
      ['agent', '--json', '--kind', 'claude', '--name', 'pathed', '--message', quickTask()],
      caller,
      { cwd: suite.scratch, timeoutMs: 30_000 },
    );
    expect(queued.code).toBe(1);
    const ticket = JSON.parse(queued.stdout).ticket as string;
    const saved = JSON.parse(await readFile(join(suite.box.state, 'tickets', `${ticket}.env`), 'utf8'));
    expect(saved.env).toEqual({ PATH: caller.PATH });
    await freeRoom(full);
    await waitFor(
      'the admitted ticket',
      async () => (await tickets(suite)).find((t) => t.id === ticket && t.state === 'admitted'),
      { timeoutMs: 30_000 },
    );
    // The caller's claude ran, not the one on Herdr's or the service's PATH.
    expect((await readFile(mark, 'utf8')).trim().split('\n')).toHaveLength(1);
    expect(await ticketEnvs()).not.toContain(`${ticket}.env`);
  });

  it('a queued child whose harness is not on its caller PATH fails at once, in one line naming it and the host, with no pane', async () => {
    const full = await fill();
    // The herdr shim and a dogsled, no harness.
    const bare = `${suite.herdr.binDir}:/usr/bin:/bin`;
    const queued = await runCli(
      ['agent', '--json', '--kind', 'claude', '--name', 'nowhere', '--message', quickTask()],
      { ...suite.env, PATH: bare },
      { cwd: suite.scratch, timeoutMs: 30_000 },
    );
    expect(queued.code).toBe(1);
    const ticket = JSON.parse(queued.stdout).ticket as string;
    const panes = (await ok(suite.herdr, 'pane.list')).panes.length;
    await ok(suite.herdr, '_fake.calls.clear');
    await freeRoom(full);
    const failed = await waitFor(
      'the failed ticket',
      async () => (await tickets(suite)).find((t) => t.id === ticket && t.state === 'failed'),
      { timeoutMs: 30_000 },
    );
    expect(failed.error).toBe(
      `cannot start agent nowhere on local: claude is not found on the caller's PATH ${bare}`,
    );
    expect((await ok(suite.herdr, 'pane.list')).panes).toHaveLength(panes);
    expect(await agentCalls(suite.herdr)).toEqual([]);
    expect(await recordsOf(ticket)).toEqual([]);
  });
});

describe('a service killed during an agent admission', () => {
  async function itemsOf(id: string) {
    return (await items(suite)).filter((item) => item.ticket === id);
  }

  async function killedAt(point: 'before-launch' | 'after-record' | 'after-launch') {
    const pause = { DOGSLED_TEST_ADMISSION_PAUSE_MS: '30000', DOGSLED_TEST_ADMISSION_PAUSE_AT: point };
    // The host is full until the ticket has queued; then it has room and the ticket is admitted.
    const first = await served.restart(pause);
    const full = await fill();
    const queued = await runCli(
      ['agent', '--json', '--kind', 'pi', '--name', `once-${point}`, '--message', quickTask()],
      suite.env,
      { cwd: suite.scratch, timeoutMs: 30_000 },
    );
    expect(queued.code).toBe(1);
    const id = JSON.parse(queued.stdout).ticket as string;
    await freeRoom(full);
    await waitFor(
      `an admission paused at ${point}`,
      async () => {
        const ticket = (await tickets(suite)).find((t) => t.id === id);
        if (ticket?.state !== 'admitting') return undefined;
        const records = await recordsOf(id);
        if (point === 'before-launch') return true;
        // The pause comes after the record and the owner's item: wait for both, or the kill may land
        // between them.
        if (point === 'after-record')
          return (records.length === 1 && (await itemsOf(id)).length === 1) || undefined;
        return records[0]?.state === 'started' || undefined;
      },
      { timeoutMs: 40_000 },
    );
    first.kill('SIGKILL');
    await waitFor(
      'the frozen serve to be killed',
      async () => first.exitCode !== null || first.signalCode !== null || undefined,
    );
    // The file's plain serve again: it settles the ticket from what it finds.
    await served.restart();
    return waitFor(
      'the interrupted ticket settled',
      async () => (await tickets(suite)).find((t) => t.id === id && t.state !== 'admitting'),
      { timeoutMs: 20_000 },
    );
  }

  it('after the child started: admitted, and the child is never started again', async () => {
    const ticket = await killedAt('after-launch');
    expect(ticket.state).toBe('admitted');
    expect(await newLaunches(suite)).toHaveLength(1);
    expect(await recordsOf(ticket.id)).toEqual([expect.objectContaining({ state: 'started', attempts: 1 })]);
  });

  it('after the record, before any try: failed as never started, nothing typed, the item closed', async () => {
    const ticket = await killedAt('after-record');
    expect(ticket.state).toBe('failed');
    expect(ticket.error).toMatch(/never started: the service \(pid \d+\) stopped while launching it/);
    expect(await recordsOf(ticket.id)).toEqual([expect.objectContaining({ state: 'failed', attempts: 0 })]);
    expect(await newLaunches(suite)).toEqual([]);
    expect(await itemsOf(ticket.id)).toEqual([expect.objectContaining({ close_reason: 'launch failed' })]);
  });

  it('before the launch began: failed, nothing ran', async () => {
    const ticket = await killedAt('before-launch');
    expect(ticket.state).toBe('failed');
    expect(ticket.error).toMatch(/nothing ran/);
    expect(await recordsOf(ticket.id)).toEqual([]);
    expect(await newLaunches(suite)).toEqual([]);
  });
});
