// End to end with the real exec wrapper: a created record, `dogsled exec ID -- CMD` started
// detached as the headless launcher does, then ps, logs, wait and stop against what exec wrote.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { CLI, exited, runCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { alive, createJob, type JobSandbox, jobSandbox, killGroup, record } from './job-inspect-fixture.js';

let box: JobSandbox;
const children: ChildProcess[] = [];
const groups: number[] = [];

beforeEach(async () => {
  box = await jobSandbox();
});

afterEach(async () => {
  for (const pgid of groups.splice(0)) killGroup(pgid);
  for (const child of children.splice(0)) if (child.pid) killGroup(child.pid);
  await box.cleanup();
});

/** Creates the record and starts `exec` for it; resolves once exec recorded the job's group. */
async function execJob(script: string): Promise<{ id: string; exec: ChildProcess; started: JobRecord }> {
  const command = ['sh', '-c', script];
  const job = await createJob(box.io, { command, cwd: box.root });
  const exec = spawn(process.execPath, [CLI, 'exec', job.id, '--', ...command], {
    env: box.env,
    cwd: box.root,
    detached: true,
    stdio: 'ignore',
  });
  children.push(exec);
  const started = await waitFor('the job started or ended', async () => {
    const current = await record(box.io, job.id);
    return current.ended_ms !== null || typeof current.pgid === 'number' ? current : undefined;
  });
  if (typeof started.pgid === 'number') groups.push(started.pgid);
  return { id: job.id, exec, started };
}

describe('inspection of jobs that exec runs', () => {
  test('wait returns the exit code, logs prints the output and ps --all lists the end', async () => {
    const { id, exec } = await execJob('echo hi; sleep 0.3; echo bye; exit 3');
    expect(await runCli(['wait', id], box.env)).toMatchObject({ code: 3, stdout: '', stderr: '' });
    expect(await runCli(['logs', id], box.env)).toMatchObject({ code: 0, stdout: 'hi\nbye\n' });
    const ps = JSON.parse((await runCli(['ps', '--all', '--json'], box.env)).stdout);
    expect(ps.jobs).toEqual([expect.objectContaining({ id, state: 'ended', exit_code: 3 })]);
    expect(await exited(exec)).toEqual({ code: 3, signal: null });
  });

  test('stop ends a running job, grandchild included, and exec records it stopped', async () => {
    const pidFile = join(box.root, 'grandchild.pid');
    const { id } = await execJob(`sh -c 'echo $$ > "$0"; exec sleep 30' '${pidFile}' & wait`);
    const grandchild = await waitFor("the grandchild's pid file", async () => {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      return /^\d+\n$/.test(text) ? Number(text) : undefined;
    });
    const result = await runCli(['stop', id], box.env);
    expect(result).toMatchObject({ code: 0, stdout: `${id} stopped (sent SIGTERM)\n`, stderr: '' });
    expect(await alive(grandchild)).toBe(false);
    expect(await record(box.io, id)).toMatchObject({ reason: 'stopped', ended_ms: expect.any(Number) });
    expect((await runCli(['wait', id], box.env)).code).toBe(143);
  });

  test('a wrapper killed with SIGKILL never leaves a waiter hanging', async () => {
    const { id, started } = await execJob('sleep 30');
    const waiter = runCli(['wait', id, '--max', '20s'], box.env);
    process.kill(started.wrapper_pid as number, 'SIGKILL');
    expect(await waiter).toMatchObject({ code: 125, stdout: '', stderr: '' });
    expect(await record(box.io, id)).toMatchObject({ reason: 'wrapper lost' });
    await waitFor("the job's process group gone", async () =>
      (await alive(started.pgid as number)) ? undefined : true,
    );
  });
});
