// A job's reservation ends when its job ends, not at the 90 s TTL (agents keep theirs): on a 2-core
// host with the default policy, a third `run` right after two short jobs ended finds the room they
// held free again. The final record carries what the job used (peak memory, CPU time), which
// `ps --json` prints and `ps --all` shows in its CPU and MEM columns.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { statePaths } from '../../../service/state/paths.js';
import { readJobRecord } from '../../../service/state/records/job-records.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let lock: ServiceLock;

beforeEach(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
  // Two idle cores and the default policy (no config file): room for exactly two reservations.
  await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 2, busy: 0 }));
});

afterEach(async () => {
  await lock.release();
  await box.cleanup();
});

async function reservations(): Promise<Array<{ id: string }>> {
  const text = await readFile(join(box.state, 'placements.json'), 'utf8');
  return JSON.parse(text).reservations;
}

const jobOf = (stderr: string) => /(j_[a-z2-7]{12})/.exec(stderr)?.[1];

describe("a job's reservation", () => {
  it('ends when the job ends: a third run on a 2-core host is placed at once, not queued', async () => {
    for (const n of [1, 2]) {
      const result = await runCli(['run', '--wait', '--cwd', box.root, '--', 'true'], box.env);
      expect({ n, code: result.code, stderr: result.stderr }).toEqual({ n, code: 0, stderr: '' });
    }
    expect(await reservations()).toEqual([]);
    const third = await runCli(['run', '--json', '--cwd', box.root, '--', 'true'], box.env);
    expect({ code: third.code, stderr: third.stderr }).toEqual({ code: 0, stderr: '' });
    const placed = JSON.parse(third.stdout);
    expect(placed).toMatchObject({ queued: false, job: expect.stringMatching(/^j_/) });
    // The record names the reservation it held.
    const record = await readJobRecord(statePaths(box.state), placed.job);
    expect(record.reservation).toMatch(/^r_/);
  });

  it('holds the room while the job runs, and a `place` reservation keeps its TTL', async () => {
    const placed = await runCli(['place', '--json'], box.env);
    expect(placed.code).toBe(0);
    const gate = join(box.root, 'gate');
    const running = runCli(
      ['run', '--wait', '--cwd', box.root, '--', 'sh', '-c', `while [ ! -e ${gate} ]; do sleep 0.05; done`],
      box.env,
    );
    await waitFor('two reservations', async () => ((await reservations()).length === 2 ? true : undefined), {
      timeoutMs: 10_000,
    });
    // The place reservation and the running job fill the host: the next run queues.
    const full = await runCli(['run', '--json', '--cwd', box.root, '--', 'true'], box.env);
    expect(full.code).toBe(1);
    expect(JSON.parse(full.stdout)).toMatchObject({ queued: true });
    await writeFile(gate, '');
    expect((await running).code).toBe(0);
    const left = (await reservations()).map((r) => r.id);
    expect(left).toEqual([JSON.parse(placed.stdout).reservation]);
  });
});

describe('what a job used', () => {
  it('records peak memory and CPU time in the final record, shown by ps --json and ps --all', async () => {
    // 64 MiB resident, some CPU, then long enough alive for the sampler (one sample a second at most).
    const script =
      'const b = Buffer.alloc(64 * 1024 * 1024, 1); let x = 0; for (let i = 0; i < 3e7; i++) x += i % 7; ' +
      'setTimeout(() => console.log(b[0] + (x > 0 ? 1 : 0)), 2500);';
    const result = await runCli(
      ['run', '--wait', '--cwd', box.root, '--', process.execPath, '-e', script],
      box.env,
      { timeoutMs: 30_000 },
    );
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: '2\n' });
    const ps = JSON.parse((await runCli(['ps', '--all', '--json'], box.env)).stdout) as { jobs: JobRecord[] };
    const [job] = ps.jobs;
    expect(job?.peak_rss_bytes).toBeGreaterThanOrEqual(64 * 1024 * 1024);
    expect(job?.cpu_ms).toBeGreaterThan(0);
    const table = (await runCli(['ps', '--all'], box.env)).stdout.split('\n');
    expect(table[0]).toMatch(/^ID\s+STATE\s+HOST\s+END\s+TIME\s+CPU\s+MEM\s+COMMAND$/);
    expect(table[1]).toMatch(
      new RegExp(`^${job?.id}\\s+ended\\s+local\\s+exit 0\\s+\\S+\\s+\\d+(ms|s)\\s+\\d+(\\.\\d)?M\\s`),
    );
    expect(jobOf(table[1] ?? '')).toBe(job?.id);
  }, 40_000);
});
