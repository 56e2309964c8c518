// Durations beyond setTimeout's 24.8 days are correct: `--max 600h` does not fire at once (no
// TimeoutOverflowWarning, no early 124), nor does `--timeout 600h`. Absurd values (over 365 days,
// intervals over a day, zero) are one-line refusals, worded the same by every command, with nothing
// written. A deadline that has not fired is checked by state after a short real wait, never by time.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { statePaths } from '../../../service/state/paths.js';
import { changeTicket, readQueue } from '../../../service/state/records/queue-items.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { JobRecordSchema } from '../../../service/state/schemas/host-schemas.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { freshHost, gatedScript } from '../../helpers/run-fixtures.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let lock: ServiceLock;

beforeEach(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
});

afterEach(async () => {
  await lock.release();
  await box.cleanup();
});

/** Longer than setTimeout's 2^31 - 1 ms, shorter than the 365-day limit. */
const LONG = '600h';
/** How long a deadline that would fire at once gets to show it. */
const SETTLE_MS = 1_500;

const host = (room: boolean) => freshHost(box.state, room);

const io = () => ({ paths: statePaths(box.state), now: Date.now, warn: () => {} });

async function record(id: string): Promise<JobRecord> {
  return JobRecordSchema.parse(JSON.parse(await readFile(join(box.state, 'jobs', `${id}.json`), 'utf8')));
}

async function startedJob(): Promise<JobRecord> {
  return waitFor(
    'a started job',
    async () => {
      const names = await readdir(join(box.state, 'jobs')).catch(() => []);
      const name = names.find((entry) => entry.endsWith('.json'));
      if (name === undefined) return undefined;
      const job = await record(name.slice(0, -'.json'.length));
      return job.started_ms === null ? undefined : job;
    },
    { timeoutMs: 10_000 },
  );
}

const gated = () => gatedScript(box.root);

describe('a --max longer than a timer can hold', () => {
  it('place --wait keeps waiting for admission', async () => {
    await host(false);
    const child = startCli(['place', '--wait', '--json', '--max', LONG], box.env);
    const ticket = await waitFor(
      'the pending ticket',
      async () => (await readQueue(io())).tickets.find((t) => t.state === 'pending'),
      { timeoutMs: 10_000 },
    );
    await sleep(SETTLE_MS);
    expect(child.exitCode).toBeNull();
    await changeTicket(io(), ticket.id, (t) => ({ ...t, state: 'cancelled', state_ms: Date.now() }));
    expect(await exited(child)).toEqual({ code: 2, signal: null });
    expect(child.output()).not.toContain('TimeoutOverflowWarning');
    expect(child.output()).toContain(`dogsled: place: ticket ${ticket.id} was cancelled`);
  });

  it('run --wait keeps following its job to the end', async () => {
    await host(true);
    const gate = gated();
    const child = startCli(['run', '--wait', '--max', LONG, '--', 'sh', '-c', gate.script], box.env);
    await startedJob();
    await sleep(SETTLE_MS);
    expect(child.exitCode).toBeNull();
    await gate.open();
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(child.output()).toBe('done\n');
  });

  it('wait keeps waiting for its job', async () => {
    await host(true);
    const gate = gated();
    const started = await runCli(['run', '--json', '--', 'sh', '-c', gate.script], box.env);
    const { job } = JSON.parse(started.stdout) as { job: string };
    const child = startCli(['wait', job, '--max', LONG], box.env);
    await sleep(SETTLE_MS);
    expect(child.exitCode).toBeNull();
    await gate.open();
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(child.output()).toBe('');
  });
});

describe('a --timeout longer than a timer can hold', () => {
  it('does not kill the job early', async () => {
    await host(true);
    const gate = gated();
    const result = await runCli(['run', '--json', '--timeout', LONG, '--', 'sh', '-c', gate.script], box.env);
    const { job } = JSON.parse(result.stdout) as { job: string };
    await startedJob();
    await sleep(SETTLE_MS);
    expect(await record(job)).toMatchObject({ ended_ms: null, timeout_ms: 600 * 3_600_000 });
    await gate.open();
    expect(await runCli(['wait', job], box.env)).toMatchObject({ code: 0 });
    expect(await record(job)).toMatchObject({ exit_code: 0, reason: null });
  });
});

describe('absurd durations are one-line refusals', () => {
  /** Files the refused command must not have written. */
  async function written(): Promise<string[]> {
    return (await readdir(box.state)).filter((name) => !name.startsWith('service') && name !== 'host.json');
  }

  it.each([
    [
      'place',
      ['place', '--max', '8761h'],
      'place: --max: duration "8761h" is longer than the limit of 365 days (8760h)',
    ],
    [
      'run',
      ['run', '--max', '8761h', '--', 'true'],
      'run: --max: duration "8761h" is longer than the limit of 365 days (8760h)',
    ],
    [
      'wait',
      ['wait', 'j_aaaaaaaaaaaa', '--max', '8761h'],
      'wait: --max: duration "8761h" is longer than the limit of 365 days (8760h)',
    ],
    [
      'run --timeout',
      ['run', '--timeout', '99999999999h', '--', 'true'],
      'run: --timeout: duration "99999999999h" is longer than the limit of 365 days (8760h)',
    ],
    [
      'run --idle-timeout',
      ['run', '--idle-timeout', '31536000001', '--', 'true'],
      'run: --idle-timeout: duration "31536000001" is longer than the limit of 365 days (8760h)',
    ],
    ['place --max 0', ['place', '--max', '0'], 'place: --max: must be longer than 0 (got "0")'],
    ['run --max 0', ['run', '--max', '0s', '--', 'true'], 'run: --max: must be longer than 0 (got "0s")'],
    [
      'wait --max 0',
      ['wait', 'j_aaaaaaaaaaaa', '--max', '0'],
      'wait: --max: must be longer than 0 (got "0")',
    ],
    [
      'run --timeout 0',
      ['run', '--timeout', '0', '--', 'true'],
      'run: --timeout: must be longer than 0 (got "0")',
    ],
    [
      'serve --interval',
      ['serve', '--interval', '2500000'],
      'serve: --interval: "2500000" seconds is longer than the limit of one day (86400)',
    ],
    [
      'status --interval',
      ['status', '--watch', '--interval', '86401'],
      'status: --interval: "86401" seconds is longer than the limit of one day (86400)',
    ],
  ])('%s', async (_name, args, message) => {
    await host(true);
    const result = await runCli(args, box.env);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: `dogsled: ${message}\n` });
    expect(await written()).toEqual([]);
  });

  it('the limits themselves are accepted', async () => {
    await host(true);
    expect((await runCli(['place', '--json', '--max', '8760h'], box.env)).code).toBe(0);
    const job = await runCli(
      ['run', '--json', '--timeout', '8760h', '--max', '8760h', '--', 'true'],
      box.env,
    );
    expect(job.code).toBe(0);
  });
});
