// Once a warm supervisor is taken, the service starts the next one held (service/daemon/
// warm-worker.ts): a shell that waits for one line before it becomes the Node, in the same process,
// released when the taken one exits or after WARM_HOLD_MS. Its socket is in place from the start,
// so a run that comes during the hold waits in the backlog and is handed to it. The first service
// holds for 2^32 ms, past what one Node timer holds (only the taken one's exit releases); the
// second has the default.

import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { exited, runCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { theWarmOne, warmPids } from '../../helpers/warm-supervisor.js';
import { jobsNamed, type RoomyService, startRoomyService, stopRoomyService } from './job-queue-fixtures.js';

/** A process's argv from /proc, empty once it is gone. */
async function argvOf(pid: number): Promise<string[]> {
  const text = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return text.split('\0').filter((word) => word !== '');
}

const held = (argv: string[]) => argv[0] === '/bin/sh' && argv.includes('dogsled-warm-held');

/** The warm supervisor other than `not`, as soon as the process table shows it. */
function nextWarm(state: string, not: number): Promise<number> {
  return waitFor('the next warm supervisor', async () => (await warmPids(state)).find((pid) => pid !== not), {
    timeoutMs: 20_000,
    intervalMs: 5,
  });
}

/** The one job whose command ends with `last`, once its record exists. */
function theJob(state: string, last: string): Promise<JobRecord> {
  return waitFor('the job record', async () => (await jobsNamed(state, last))[0], { timeoutMs: 20_000 });
}

/** A RoomyService for the describe that calls it, `serveEnv` in the service's environment. */
function serviceFor(serveEnv: NodeJS.ProcessEnv = {}): () => RoomyService {
  let service: RoomyService | undefined;
  beforeAll(async () => {
    service = await startRoomyService(serveEnv);
  });
  afterAll(() => stopRoomyService(service));
  return () => service as RoomyService;
}

describe('the next warm supervisor, held until the taken one exits', () => {
  const service = serviceFor({ DOGSLED_TEST_WARM_HOLD_MS: String(2 ** 32) });

  it('waits as a shell while the job runs, then becomes the Node in the same process', async () => {
    const { box, work, env } = service();
    const first = await theWarmOne(box.state);
    const started = await runCli(['run', '--cwd', work, '--', 'sh', '-c', 'sleep 2', 'hold-one'], env);
    expect(started.code, started.stderr).toBe(0);
    const next = await nextWarm(box.state, first);
    const argv = await argvOf(next);
    expect(held(argv), argv.join(' ')).toBe(true);
    // The Node it becomes is the service's own, with the same arguments.
    expect(argv.slice(-2)).toEqual(['exec', 'warm']);
    expect((await theJob(box.state, 'hold-one')).ended_ms).toBeNull();
    await waitFor('the held one to become the Node', async () => !held(await argvOf(next)) || undefined, {
      timeoutMs: 20_000,
    });
    // Released by the taken one's exit, which comes after the job's final record.
    expect((await theJob(box.state, 'hold-one')).ended_ms).not.toBeNull();
    expect(await theWarmOne(box.state, first)).toBe(next);
  });

  it('hands a run that comes during the hold to the held one once released, the job run once', async () => {
    const { box, work, env } = service();
    const first = await theWarmOne(box.state);
    const started = await runCli(['run', '--cwd', work, '--', 'sh', '-c', 'sleep 0.5', 'hold-first'], env);
    expect(started.code, started.stderr).toBe(0);
    const next = await nextWarm(box.state, first);
    const waiting = await runCli(
      ['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo second; exit 4', 'hold-second'],
      env,
    );
    expect(waiting.code, waiting.stderr).toBe(4);
    expect(waiting.stdout).toBe('second\n');
    const jobs = await jobsNamed(box.state, 'hold-second');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ wrapper_pid: next, exit_code: 4 });
    await theWarmOne(box.state, next);
  });

  it('leaves no held shell and no socket when the service stops during the hold', async () => {
    const { box, work, env, serve } = service();
    const first = await theWarmOne(box.state);
    const started = await runCli(['run', '--cwd', work, '--', 'sh', '-c', 'sleep 1', 'hold-stop'], env);
    expect(started.code, started.stderr).toBe(0);
    const next = await nextWarm(box.state, first);
    expect(held(await argvOf(next))).toBe(true);
    serve.kill('SIGTERM');
    await exited(serve);
    await waitFor('the held shell to leave', async () => (await argvOf(next)).length === 0 || undefined);
    expect(await lstat(join(box.state, 'supervisor.sock')).catch(() => 'gone')).toBe('gone');
    // The taken one stays with its job, which ends as any job does.
    await waitFor(
      'the job to end',
      async () => (await theJob(box.state, 'hold-stop')).ended_ms !== null || undefined,
      {
        timeoutMs: 20_000,
      },
    );
    expect(await theJob(box.state, 'hold-stop')).toMatchObject({ wrapper_pid: first, exit_code: 0 });
  });
});

describe('the next warm supervisor, with the default hold', () => {
  const service = serviceFor();

  it('becomes the Node while a long job still runs', async () => {
    const { box, work, env } = service();
    const first = await theWarmOne(box.state);
    const started = await runCli(['run', '--cwd', work, '--', 'sh', '-c', 'sleep 60', 'hold-long'], env);
    expect(started.code, started.stderr).toBe(0);
    const next = await nextWarm(box.state, first);
    await waitFor('the next one to become the Node', async () => !held(await argvOf(next)) || undefined, {
      timeoutMs: 20_000,
    });
    const job = await theJob(box.state, 'hold-long');
    expect(job.ended_ms).toBeNull();
    const stopped = await runCli(['stop', job.id], env);
    expect(stopped.code, stopped.stderr).toBe(0);
    await waitFor(
      'the job to end',
      async () => (await theJob(box.state, 'hold-long')).ended_ms !== null || undefined,
      {
        timeoutMs: 20_000,
      },
    );
  });
});
