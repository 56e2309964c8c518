// A waiting headless `run` starts its job's supervisor before it places the job, so the two Node
// start-ups overlap (service/jobs/job-launch.ts, standbySupervisor). Such a standby supervisor claims
// nothing until `go` arrives on its stdin: it runs the job after `go`, exits having touched nothing
// when its stdin closes or says anything else (hostile bytes included), and never hands its markers
// to the job. A run that queues, or that dies before the hand-over, leaves no supervisor behind.

import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { JobRecordSchema } from '../../../service/state/schemas/host-schemas.js';
import { CLI, exited, type Sandbox, sandbox, spawnCli } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';
import { freshHost } from '../../helpers/run-fixtures.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { waitFor } from '../../helpers/wait.js';

const SUPERVISOR = { DOGSLED_EXEC_SUPERVISOR: '1', DOGSLED_EXEC_STANDBY: '1' };

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

const jobPath = (id: string) => join(box.state, 'jobs', `${id}.json`);

async function record(id: string): Promise<JobRecord> {
  return JobRecordSchema.parse(JSON.parse(await readFile(jobPath(id), 'utf8')));
}

/** A created job with a saved environment, as `run` leaves it for its supervisor. */
async function createdJob(id: string, command: string[], env?: Record<string, string>): Promise<void> {
  await mkdir(join(box.state, 'jobs'), { recursive: true });
  await writeFile(jobPath(id), JSON.stringify(jobFixture({ id, command, cwd: work, owner: null })));
  if (env !== undefined)
    await writeFile(join(box.state, 'jobs', `${id}.env`), JSON.stringify({ version: 1, env }));
}

/** `exec ID` as a standby supervisor, its stdin a pipe the test writes. */
function standby(id: string) {
  const child = spawn(process.execPath, [CLI, 'exec', id], {
    cwd: work,
    env: { ...box.env, ...SUPERVISOR },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  return { child, stderr: () => stderr };
}

/** Standby supervisors of this sandbox's state dir that are alive now, from the process table. */
async function standbys(): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const environ = await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '');
    const vars = environ.split('\0');
    if (vars.includes(`DOGSLED_STATE=${box.state}`) && vars.includes('DOGSLED_EXEC_STANDBY=1')) {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
      if (!/\) Z /.test(stat)) found.push(Number(name));
    }
  }
  return found;
}

describe('a supervisor started ahead', () => {
  it('runs its job only once go arrives, then exits with its status', async () => {
    await createdJob('j_standby00001', ['sh', '-c', 'echo ran; exit 5'], { PATH: process.env.PATH ?? '' });
    const { child, stderr } = standby('j_standby00001');
    child.stdin?.end('go\n');
    expect(await exited(child)).toEqual({ code: 5, signal: null });
    expect(stderr()).toBe('');
    expect(await record('j_standby00001')).toMatchObject({ exit_code: 5, reason: null });
    expect(await readFile(join(box.state, 'jobs', 'j_standby00001.log'), 'utf8')).toBe('ran\n');
  });

  it.each([
    ['its stdin closes', ''],
    ['it hears something else', 'gone\n'],
    ['it hears escape sequences', '\u001b]0;go\u0007\u001b[2Jgo\n'],
    ['it hears go without its newline', 'go'],
  ])('exits 0 having touched nothing when %s', async (_what, input) => {
    await createdJob('j_standby00002', ['sh', '-c', 'echo ran'], { PATH: process.env.PATH ?? '' });
    const before = await readFile(jobPath('j_standby00002'), 'utf8');
    const { child, stderr } = standby('j_standby00002');
    child.stdin?.end(input);
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(stderr()).toBe('');
    expect(await readFile(jobPath('j_standby00002'), 'utf8')).toBe(before);
    // The saved environment stays for whoever launches the job; no log was started.
    expect((await readdir(join(box.state, 'jobs'))).sort()).toEqual([
      'j_standby00002.env',
      'j_standby00002.json',
    ]);
  });

  it("never hands its markers to the job, even when it runs with the wrapper's environment", async () => {
    // No jobs/ID.env: a record written by hand runs with its wrapper's environment.
    await createdJob('j_standby00003', ['env']);
    const { child } = standby('j_standby00003');
    child.stdin?.end('go\n');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    const log = await readFile(join(box.state, 'jobs', 'j_standby00003.log'), 'utf8');
    expect(log).toContain(`DOGSLED_STATE=${box.state}`);
    expect(log).not.toContain('DOGSLED_EXEC_');
  });
});

describe('run --wait headless with a supervisor started ahead', () => {
  it('gives the job the caller environment without the supervisor markers', async () => {
    await freshHost(box.state, true);
    const run = spawnCli(['run', '--wait', '--cwd', work, '--', 'env'], { ...box.env, MY_VAR: 'mine' });
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('MY_VAR=mine\n');
    expect(result.stdout).not.toContain('DOGSLED_EXEC_');
    // The standby was the job's supervisor: it exits once the final record is written.
    await waitFor('no standby', async () => ((await standbys()).length === 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
  });

  it('sends the standby away as soon as the run queues', async () => {
    await freshHost(box.state, false);
    const run = spawnCli(['run', '--wait', '--max', '30s', '--cwd', work, '--', 'true'], box.env, {
      timeoutMs: 60_000,
    });
    let stderr = '';
    run.child.stderr?.on('data', (d: Buffer) => {
      stderr += String(d);
    });
    await waitFor('a ticket', async () => (stderr.includes('queued as t_') ? true : undefined), {
      timeoutMs: 20_000,
    });
    // Still waiting for admission, and no supervisor waits with it.
    await waitFor('no standby', async () => ((await standbys()).length === 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
    expect(run.child.exitCode).toBeNull();
    run.child.kill('SIGTERM');
    await run.done;
  });

  it('leaves no supervisor and no started job when the run dies before the hand-over', async () => {
    await freshHost(box.state, true);
    // The run stops inside the placements lock, after its standby started, and is killed there.
    const run = spawnCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo ran'], {
      ...box.env,
      DOGSLED_TEST: '1',
      DOGSLED_TEST_LOCK_HOLD_FILE: 'placements.json',
      DOGSLED_TEST_LOCK_HOLD_MS: '60000',
    });
    await waitFor('a standby', async () => ((await standbys()).length === 1 ? true : undefined), {
      timeoutMs: 20_000,
    });
    run.child.kill('SIGKILL');
    await run.done;
    await waitFor('no standby', async () => ((await standbys()).length === 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
    const files = await readdir(join(box.state, 'jobs')).catch(() => []);
    for (const name of files.filter((f) => f.endsWith('.json'))) {
      expect((await record(name.replace(/\.json$/, ''))).started_ms).toBeNull();
    }
    expect(files.filter((f) => f.endsWith('.log'))).toEqual([]);
  });
});
