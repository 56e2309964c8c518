// `--json` prints exactly one document (DESIGN §5), also when `place` and `run` wait: a placement
// or a job that went through the queue prints its final document only (naming the ticket), a wait
// that reaches --max prints a `still_running` document, and `run --wait --json` sends the job's own
// output to stderr. Every document is checked against its schema in cli/output-schemas.ts.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import {
  PlacedSchema,
  PlaceOutputSchema,
  QueuedSchema,
  RunEndedSchema,
  RunOutputSchema,
  RunStartedSchema,
  RunStillRunningSchema,
  StillQueuedSchema,
} from '../../../cli/output-schemas.js';
import type { Ticket } from '../../../service/core/placement/queue-types.js';
import { launchJob } from '../../../service/jobs/job-launch.js';
import { newId } from '../../../service/state/engine/ids.js';
import { statePaths } from '../../../service/state/paths.js';
import { changeTicket, readQueue } from '../../../service/state/records/queue-items.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { Deadline } from '../../../service/time/deadline.js';
import { CLI, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { freshHost, gatedScript } from '../../helpers/run-fixtures.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let lock: ServiceLock;
let work: string;

beforeEach(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
  work = join(box.root, 'work');
  await mkdir(work);
});

afterEach(async () => {
  await lock.release();
  await box.cleanup();
});

const host = (room: boolean) => freshHost(box.state, room);

const io = () => ({ paths: statePaths(box.state), now: Date.now, warn: () => {} });

/** stdout must be one JSON document on one line, valid for `schema` (and for the command's union). */
function oneDocument<T>(stdout: string, schema: z.ZodMiniType<T>, union: z.ZodMiniType): T {
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.trimEnd().split('\n')).toHaveLength(1);
  const doc = JSON.parse(stdout);
  union.parse(doc);
  return schema.parse(doc);
}

/** Plays the service's first step: the caller's pending ticket. */
function pending(): Promise<Ticket> {
  return waitFor(
    'the pending ticket',
    async () => (await readQueue(io())).tickets.find((t) => t.state === 'pending'),
    { timeoutMs: 10_000 },
  );
}

/** A script that runs until the test creates the gate file. */
const gated = () => gatedScript(box.root);

describe('place --json', () => {
  it('prints the placement, or the ticket when every host is full', async () => {
    await host(true);
    const placed = await runCli(['place', '--json'], box.env);
    expect(placed.code).toBe(0);
    expect(oneDocument(placed.stdout, PlacedSchema, PlaceOutputSchema).ticket).toBeUndefined();
    await host(false);
    const queued = await runCli(['place', '--json'], box.env);
    expect(queued.code).toBe(1);
    oneDocument(queued.stdout, QueuedSchema, PlaceOutputSchema);
  });

  it('--wait prints only the placement, naming the ticket it came through', async () => {
    await host(false);
    const waiting = runCli(['place', '--wait', '--json'], box.env);
    const ticket = await pending();
    const reservation = {
      id: 'r_admittedbyus',
      created_ms: Date.now(),
      expires_ms: Date.now() + 90_000,
      owner: null,
    };
    await writeFile(
      join(box.state, 'placements.json'),
      JSON.stringify({ version: 1, reservations: [reservation] }),
    );
    await changeTicket(io(), ticket.id, (t) => ({
      ...t,
      state: 'admitted',
      state_ms: Date.now(),
      host: 'local',
      reservation: reservation.id,
    }));
    const result = await waiting;
    expect(result.code).toBe(0);
    expect(oneDocument(result.stdout, PlacedSchema, PlaceOutputSchema)).toMatchObject({
      reservation: reservation.id,
      ticket: ticket.id,
    });
    expect(result.stderr).toContain(`queued as ${ticket.id}`);
  });

  it('--wait at --max prints the ticket still running, exit 124, and leaves it pending', async () => {
    await host(false);
    const result = await runCli(['place', '--wait', '--json', '--max', '2s'], box.env);
    expect(result.code).toBe(124);
    const doc = oneDocument(result.stdout, StillQueuedSchema, PlaceOutputSchema);
    expect((await readQueue(io())).tickets).toEqual([
      expect.objectContaining({ id: doc.ticket, state: 'pending' }),
    ]);
  });
});

describe('run --json', () => {
  it('prints the started job without --wait', async () => {
    await host(true);
    const result = await runCli(['run', '--json', '--cwd', work, '--', 'true'], box.env);
    expect(result.code).toBe(0);
    oneDocument(result.stdout, RunStartedSchema, RunOutputSchema);
  });

  it("--wait prints the ended job with its status; the job's output goes to stderr", async () => {
    await host(true);
    const script = 'echo out; echo err >&2; exit 3';
    const result = await runCli(
      ['run', '--wait', '--json', '--cwd', work, '--', 'sh', '-c', script],
      box.env,
    );
    expect(result.code).toBe(3);
    expect(oneDocument(result.stdout, RunEndedSchema, RunOutputSchema)).toMatchObject({
      queued: false,
      ticket: null,
      host: 'local',
      pane: null,
      status: 3,
      exit_code: 3,
      signal: null,
      reason: null,
    });
    expect(result.stderr).toBe('out\nerr\n');
  });

  it('--wait at --max prints the job still running, exit 124, and the job runs on', async () => {
    await host(true);
    const gate = gated();
    const result = await runCli(
      ['run', '--wait', '--json', '--max', '2s', '--cwd', work, '--', 'sh', '-c', gate.script],
      box.env,
    );
    expect(result.code).toBe(124);
    const doc = oneDocument(result.stdout, RunStillRunningSchema, RunOutputSchema);
    await gate.open();
    const ended = await runCli(['wait', doc.job], box.env);
    expect(ended.code).toBe(0);
  });

  it('--wait on a queued ticket prints only the ended job, naming its ticket', async () => {
    await host(false);
    const waiting = runCli(['run', '--wait', '--json', '--cwd', work, '--', 'sh', '-c', 'exit 5'], box.env);
    const ticket = await pending();
    // The admission worker's steps: pre-assign the ids, launch, then mark the ticket admitted.
    const ids = { job: newId('j'), item: newId('i') };
    await changeTicket(io(), ticket.id, (t) => ({ ...t, state: 'admitting', ...ids }));
    const request = ticket.request;
    if (request === null) throw new Error('a run ticket carries its request');
    await launchJob(
      { ...io(), env: box.env, home: box.home, self: [process.execPath, CLI] },
      {
        jobId: ids.job,
        itemId: ids.item,
        request,
        owner: null,
        host: 'local',
        ticket: ticket.id,
        reservation: null,
        env: null,
      },
      new Deadline(10_000),
    );
    await changeTicket(io(), ticket.id, (t) => ({ ...t, state: 'admitted', host: 'local' }));
    const result = await waiting;
    expect(result.code).toBe(5);
    expect(oneDocument(result.stdout, RunEndedSchema, RunOutputSchema)).toMatchObject({
      ticket: ticket.id,
      job: ids.job,
      item: ids.item,
      status: 5,
    });
  });

  it('--wait at --max on a pending ticket prints the ticket still running, exit 124', async () => {
    await host(false);
    const result = await runCli(['run', '--wait', '--json', '--max', '2s', '--', 'true'], box.env);
    expect(result.code).toBe(124);
    oneDocument(result.stdout, StillQueuedSchema, RunOutputSchema);
  });
});
