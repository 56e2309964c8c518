// The admission worker's launch deadline, in-process: a launch stuck behind a lock (items.json held
// by another writer) past its deadline fails its ticket, and once the lock comes free it writes
// nothing more but its own compensation (the record ended `launch failed`, the room given back):
// no item appears for a ticket that already failed.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdmissionWorker } from '../../../service/daemon/queue/admission-worker.js';
import { readReservations } from '../../../service/hosts/local-facts.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { withLock } from '../../../service/state/engine/lock.js';
import { type StatePaths, statePaths } from '../../../service/state/paths.js';
import { readJobRecord } from '../../../service/state/records/job-records.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';
import { appendTickets, items, ticketFixture } from './job-queue-fixtures.js';

let box: Sandbox;
let lock: ServiceLock | undefined;

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

/** Holds `file`'s lock until the returned function is called. */
async function holdLock(file: string): Promise<() => Promise<void>> {
  let release: () => void = () => undefined;
  const held = new Promise<void>((acquired) => {
    void withLock(file, () => {
      acquired();
      return new Promise<void>((done) => {
        release = done;
      });
    });
  });
  await held;
  return async () => {
    release();
    // The next waiter takes it as soon as the lock directory is gone.
    await waitFor(`${file} released`, async () => (await lockFree(file)) || undefined, { timeoutMs: 5_000 });
  };
}

async function lockFree(file: string): Promise<boolean> {
  const { inspectLock } = await import('../../../service/state/engine/lock.js');
  return (await inspectLock(file)) === undefined;
}

function worker(paths: StatePaths, launchCapMs: number): AdmissionWorker {
  return new AdmissionWorker({
    paths,
    now: Date.now,
    warn: () => undefined,
    config: structuredClone(DEFAULT_CONFIG),
    env: { PATH: process.env.PATH },
    home: box.home,
    pid: process.pid,
    started_ms: Date.now(),
    launchCapMs,
  });
}

describe('an admission whose launch outlives its deadline', () => {
  it('fails the ticket, and the launch writes no item afterwards', async () => {
    const paths = statePaths(box.state);
    lock = await holdServiceLock(box.state);
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() }));
    const request = {
      command: ['true'],
      cwd: box.root,
      timeout_ms: null,
      idle_timeout_ms: null,
      caller_workspace: null,
    };
    await appendTickets(box, [ticketFixture({ id: 't_deadline0000', request })]);
    const release = await holdLock(paths.items);

    const results = await worker(paths, 500).pass();
    expect(results).toHaveLength(1);
    const failed = results[0];
    if (failed?.kind !== 'failed') throw new Error(`expected a failed admission, got ${failed?.kind}`);
    expect(failed.ticket.error).toMatch(/admission of ticket t_deadline0000 exceeded its deadline/);
    const jobId = failed.ticket.job;
    if (jobId === null) throw new Error('the claim named no job');

    await release();
    // The launch still in flight ends its record either way; by then any item it wrote is there.
    const ended = await waitFor(
      'the job record ended',
      async () => {
        const record = await readJobRecord(paths, jobId);
        return record.ended_ms === null ? undefined : record;
      },
      { timeoutMs: 10_000 },
    );
    expect(ended.started_ms).toBeNull();
    expect(ended.reason).toMatch(/^launch failed: /);
    // Its room is given back after the record ends (job-launch.ts `failed`), and the item, had the
    // launch written one, closed after that: wait for the room, then read the items.
    await waitFor(
      'the reservation ended',
      async () =>
        (await readReservations({ paths, now: Date.now, warn: () => undefined })).length === 0 || undefined,
      { timeoutMs: 10_000 },
    );
    expect(await items(box)).toEqual([]);
  });
});
