// Fixtures of the queue tests: tickets, items and job records written through the real state
// modules, and a real `serve` measuring a fake /proc whose room the test decides (cores, busy 0,
// and a config whose reservation_load leaves room for exactly N reservations).

import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Item } from '../../../service/core/agents/item-types.js';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import type { Ticket } from '../../../service/core/placement/queue-types.js';
import { type Launched, launchJob } from '../../../service/jobs/job-launch.js';
import { newId } from '../../../service/state/engine/ids.js';
import type { StateIO } from '../../../service/state/io.js';
import { ensureStateDir, statePaths } from '../../../service/state/paths.js';
import { writeJobRecord } from '../../../service/state/records/job-records.js';
import {
  changeTicket,
  readItems,
  readQueue,
  updateItems,
  updateQueue,
} from '../../../service/state/records/queue-items.js';
import { JobRecordSchema } from '../../../service/state/schemas/host-schemas.js';
import { Deadline } from '../../../service/time/deadline.js';
import { CLI, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { advanceStat, writeProc } from '../../helpers/proc-fixture.js';
import { waitFor } from '../../helpers/wait.js';

export { itemFixture, jobFixture, ticketFixture } from '../../helpers/job-fixtures.js';
export { killAll } from '../../helpers/serve-sandbox.js';

export function workIO(box: Sandbox): StateIO {
  return { paths: statePaths(box.state), now: Date.now, warn: () => undefined };
}

export async function appendTickets(box: Sandbox, tickets: readonly Ticket[]): Promise<void> {
  await ensureStateDir(box.state);
  await updateQueue(workIO(box), (queue) => ({
    result: undefined,
    next: { ...queue, tickets: [...queue.tickets, ...tickets] },
  }));
}

export async function appendItems(box: Sandbox, items: readonly Item[]): Promise<void> {
  await ensureStateDir(box.state);
  await updateItems(workIO(box), (current) => ({
    result: undefined,
    next: { ...current, items: [...current.items, ...items] },
  }));
}

/**
 * Plays the admission worker for one pending job ticket, headless: pre-assign the ids
 * (`admitting`), launch the job, then mark the ticket admitted.
 */
export async function admitByHand(box: Sandbox, ticketId: string): Promise<Launched> {
  const io = workIO(box);
  const ids = { job: newId('j'), item: newId('i') };
  const ticket = await changeTicket(io, ticketId, (t) => ({ ...t, state: 'admitting', ...ids }));
  const launched = await launchJob(
    { ...io, env: box.env, home: box.home, self: [process.execPath, CLI] },
    {
      jobId: ids.job,
      itemId: ids.item,
      request: ticket.request!,
      owner: null,
      host: 'local',
      ticket: ticketId,
      reservation: null,
      env: null,
    },
    new Deadline(10_000),
  );
  await changeTicket(io, ticketId, (t) => ({ ...t, state: 'admitted', host: 'local' }));
  return launched;
}

export async function writeJobs(box: Sandbox, records: readonly JobRecord[]): Promise<void> {
  await ensureStateDir(box.state);
  for (const record of records) await writeJobRecord(statePaths(box.state), record);
}

export async function tickets(box: Sandbox): Promise<Ticket[]> {
  return (await readQueue(workIO(box))).tickets;
}

export async function items(box: Sandbox): Promise<Item[]> {
  return (await readItems(workIO(box))).items;
}

export interface Serving {
  child: ReturnType<typeof startCli>;
  env: NodeJS.ProcessEnv;
  stop: () => Promise<void>;
}

/**
 * A fake /proc of 8 idle cores and a config where each reservation takes 1.5 cores and 2 must stay
 * free: room for exactly 5 reservations, each gone after `ttlMs`. Memory and disk never refuse.
 * `facts: false` for a file that never looks at the host's facts: a serve's `dogsled host facts`
 * child (a Node start, systeminformation and some thirty commands, about a second of CPU) meets its
 * deadline at once, and the snapshots say why they carry no facts.
 */
export async function roomFor5(
  box: Sandbox,
  ttlMs: number,
  options: { facts?: boolean } = {},
): Promise<{ env: NodeJS.ProcessEnv; stop: () => void }> {
  await writeFile(
    box.configPath,
    `reservation_load = 1.5\nreservation_ttl_ms = ${ttlMs}\nmemory_reserve_bytes = 0\ndisk_free_min_percent = 0\n`,
  );
  const proc = join(box.root, 'fakeroot');
  let total = 10_000;
  await writeProc(proc, { cores: 8, total, idle: total });
  // An idle kernel: the counters move, all of it idle, so the service has a CPU sample of 0% busy.
  // One write at a time (they share a temp name), until stopped.
  let stopped = false;
  const tick = async () => {
    while (!stopped) {
      total += 100;
      await advanceStat(proc, { cores: 8, total, idle: total }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  void tick();
  return {
    env: {
      ...box.env,
      DOGSLED_TEST: '1',
      DOGSLED_TEST_PROBE_ROOT: proc,
      ...(options.facts === false ? { DOGSLED_TEST_FACTS_TIMEOUT_MS: '1' } : {}),
    },
    stop: () => {
      stopped = true;
    },
  };
}

export function startServe(env: NodeJS.ProcessEnv, running: Array<ReturnType<typeof startCli>>) {
  const child = startCli(['serve', '--interval', '0.3'], env);
  running.push(child);
  return child;
}

/** Waits until `serve` published a snapshot in which the host is eligible. */
export async function untilEligible(box: Sandbox): Promise<void> {
  await waitFor(
    'an eligible host',
    async () => {
      const snapshot = JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8'));
      return snapshot.headroom.eligible === true || undefined;
    },
    { timeoutMs: 15_000 },
  );
}

/** A sandbox with room for five (roomFor5, a minute's reservations) and a `serve` on it. */
export interface RoomyService {
  box: Sandbox;
  /** An empty directory under the sandbox, for the jobs' working directory. */
  work: string;
  env: NodeJS.ProcessEnv;
  serve: ReturnType<typeof startCli>;
  /** Stops the fake /proc's ticking (stopRoomyService does it too). */
  stopProc: () => void;
}

/**
 * Starts a RoomyService and waits until its host is eligible: the warm-supervisor files' setup.
 * `serveEnv` is added to the service's environment only (a knob of its own).
 */
export async function startRoomyService(serveEnv: NodeJS.ProcessEnv = {}): Promise<RoomyService> {
  const box = await sandbox();
  const work = join(box.root, 'work');
  await mkdir(work);
  const room = await roomFor5(box, 60_000, { facts: false });
  const serve = startCli(['serve', '--interval', '0.3'], { ...room.env, ...serveEnv });
  await untilEligible(box);
  return { box, work, env: room.env, serve, stopProc: room.stop };
}

export async function stopRoomyService(service: RoomyService | undefined): Promise<void> {
  if (service === undefined) return;
  const { serve } = service;
  if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
  service.stopProc();
  await service.box.cleanup();
}

/** The job records in `state` whose command's last word is `last` (a test names its jobs so). */
export async function jobsNamed(state: string, last: string): Promise<JobRecord[]> {
  const found: JobRecord[] = [];
  for (const name of await readdir(join(state, 'jobs'))) {
    if (!name.endsWith('.json')) continue;
    const text = await readFile(join(state, 'jobs', name), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const job = JobRecordSchema.parse(JSON.parse(text));
    if (job.command.at(-1) === last) found.push(job);
  }
  return found;
}
