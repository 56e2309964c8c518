import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import {
  alive,
  createJob,
  type JobSandbox,
  jobSandbox,
  killGroup,
  record,
  runningJob,
} from './job-inspect-fixture.js';

let box: JobSandbox;
const groups: number[] = [];

beforeEach(async () => {
  box = await jobSandbox();
});

afterEach(async () => {
  for (const pgid of groups.splice(0)) killGroup(pgid);
  await box.cleanup();
});

describe('dogsled wait', () => {
  test('exits with the job exit code: 0, 3 and 255, and 128 + N for a job killed by signal N', async () => {
    const scripts = [
      'sleep 0.3; exit 0',
      'sleep 0.3; exit 3',
      'sleep 0.3; exit 255',
      'sleep 0.3; kill -TERM $$',
    ];
    const jobs = await Promise.all(scripts.map((script) => runningJob(box.io, script)));
    groups.push(...jobs.map((job) => job.pgid));
    const results = await Promise.all(jobs.map((job) => runCli(['wait', job.id], box.env)));
    expect(results.map((result) => result.code)).toEqual([0, 3, 255, 143]);
    expect(results.map((result) => result.stdout + result.stderr)).toEqual(['', '', '', '']);
    expect((await record(box.io, jobs[3]?.id ?? '')).signal).toBe('SIGTERM');
  });

  test('a job that already ended returns its status at once', async () => {
    const job = await runningJob(box.io, 'exit 7');
    await job.ended;
    // --max counts from the process's start, so 1ms has passed before the wait reads the record.
    expect(await runCli(['wait', job.id, '--max', '1ms'], box.env)).toMatchObject({ code: 7, stdout: '' });
  });

  test('at the deadline it prints still running, exits 124, and leaves the job running', async () => {
    const job = await runningJob(box.io, 'sleep 30');
    groups.push(job.pgid);
    const result = await runCli(['wait', job.id, '--max', '300ms'], box.env);
    expect(result).toMatchObject({ code: 124, stdout: 'still running\n', stderr: '' });
    expect(await alive(job.pgid)).toBe(true);
    expect((await record(box.io, job.id)).ended_ms).toBeNull();
  });

  test('a created job that never starts is still running at the deadline', async () => {
    const job = await createJob(box.io);
    const result = await runCli(['wait', job.id, '--max', '200ms'], box.env);
    expect(result).toMatchObject({ code: 124, stdout: 'still running\n' });
  });

  test('a job whose wrapper died is reconciled: the wait ends with status 125 (no status: never the queued 1) and its group is killed', async () => {
    const job = await runningJob(box.io, 'sleep 30', { wrapper: 'dead' });
    groups.push(job.pgid);
    const result = await runCli(['wait', job.id, '--max', '10s'], box.env);
    expect(result).toMatchObject({ code: 125, stdout: '', stderr: '' });
    expect(await record(box.io, job.id)).toMatchObject({
      reason: 'wrapper lost',
      exit_code: null,
      signal: null,
      ended_ms: expect.any(Number),
    });
    expect(await job.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await alive(job.pgid)).toBe(false);
  });

  test('an unknown job and a bad --max are one-line errors with exit 2', async () => {
    expect(await runCli(['wait', 'j_nope'], box.env)).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'dogsled: wait: unknown job "j_nope"\n',
    });
    expect(await runCli(['wait', '../etc/passwd'], box.env)).toMatchObject({
      code: 2,
      stderr: 'dogsled: wait: unknown job "../etc/passwd"\n',
    });
    const job = await createJob(box.io);
    const bad = await runCli(['wait', job.id, '--max', '1.5h'], box.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^dogsled: wait: --max: bad duration "1\.5h": [^\n]+\n$/);
  });
});
