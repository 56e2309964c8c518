import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readStat } from '../../../service/process/process-table.js';
import { jobStopPath, updateJobRecord } from '../../../service/state/records/job-records.js';
import { runCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import {
  alive,
  createJob,
  deadProcess,
  type JobSandbox,
  jobSandbox,
  killGroup,
  record,
  runningJob,
} from './job-inspect-fixture.js';

let box: JobSandbox;
const groups: number[] = [];

beforeEach(async () => {
  box = await jobSandbox({ DOGSLED_TEST: '1', DOGSLED_TEST_STOP_GRACE_MS: '400' });
});

afterEach(async () => {
  for (const pgid of groups.splice(0)) killGroup(pgid);
  await box.cleanup();
});

/** A job whose command leaves a grandchild (sh -> sh -> sleep) and writes the grandchild's pid. */
async function jobWithGrandchild(wrapper: 'self' | 'dead', ignoreTerm = false) {
  const pidFile = join(box.root, `grandchild-${Math.random()}.pid`);
  const trap = ignoreTerm ? "trap '' TERM; " : '';
  const job = await runningJob(box.io, `${trap}sh -c 'echo $$ > "$0"; exec sleep 30' '${pidFile}' & wait`, {
    wrapper,
  });
  groups.push(job.pgid);
  const grandchild = await waitFor("the grandchild's pid file", async () => {
    const text = await readFile(pidFile, 'utf8').catch(() => '');
    return /^\d+\n$/.test(text) ? Number(text) : undefined;
  });
  return { job, grandchild };
}

describe('dogsled stop', () => {
  test('kills the whole process group, grandchild included, and the wrapper records it stopped', async () => {
    const { job, grandchild } = await jobWithGrandchild('self');
    const result = await runCli(['stop', job.id], box.env);
    expect(result).toMatchObject({ code: 0, stdout: `${job.id} stopped (sent SIGTERM)\n`, stderr: '' });
    expect(await alive(grandchild)).toBe(false);
    expect(await alive(job.pgid)).toBe(false);
    expect(await record(box.io, job.id)).toMatchObject({
      reason: 'stopped',
      signal: 'SIGTERM',
      exit_code: null,
    });
    expect(existsSync(jobStopPath(box.io.paths, job.id))).toBe(true);
  });

  test('a group that ignores SIGTERM gets SIGKILL after the grace', async () => {
    const { job, grandchild } = await jobWithGrandchild('self', true);
    const result = await runCli(['stop', job.id, '--json'], box.env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: job.id, reason: 'stopped', signal: 'SIGKILL' });
    expect(await alive(grandchild)).toBe(false);
  });

  test('when the wrapper is gone, stop kills the group and writes the stopped end itself', async () => {
    const { job, grandchild } = await jobWithGrandchild('dead');
    const result = await runCli(['stop', job.id], box.env);
    expect(result).toMatchObject({ code: 0, stdout: `${job.id} stopped (sent SIGTERM)\n`, stderr: '' });
    expect(await alive(grandchild)).toBe(false);
    expect(await record(box.io, job.id)).toMatchObject({
      reason: 'stopped',
      signal: 'SIGTERM',
      exit_code: null,
      ended_ms: expect.any(Number),
    });
    const wait = await runCli(['wait', job.id], box.env);
    expect(wait.code).toBe(143);
  });

  test('a job that already ended is reported with its token, exit 0, and nothing is signalled', async () => {
    const job = await runningJob(box.io, 'exit 3');
    await job.ended;
    expect(await runCli(['stop', job.id], box.env)).toMatchObject({
      code: 0,
      stdout: `${job.id} already ended (exit 3)\n`,
      stderr: '',
    });
    expect(existsSync(jobStopPath(box.io.paths, job.id))).toBe(false);
    const json = await runCli(['stop', job.id, '--json'], box.env);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: job.id, exit_code: 3, reason: null });
  });

  test('a created job gets the stop file and stays created until exec starts it', async () => {
    const job = await createJob(box.io);
    const result = await runCli(['stop', job.id], box.env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      `${job.id} has not started: stop requested; it ends as stopped when it starts\n`,
    );
    expect(existsSync(jobStopPath(box.io.paths, job.id))).toBe(true);
    expect(await record(box.io, job.id)).toMatchObject({ started_ms: null, ended_ms: null });
  });

  test('a reused pid is never signalled: a group whose leader start time differs is left alone', async () => {
    // An unrelated process group that happens to hold the pid the record names.
    const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const pgid = stranger.pid as number;
    groups.push(pgid);
    const start = (await readStat(pgid))?.start ?? 0;
    const job = await createJob(box.io);
    const wrapper = await deadProcess();
    await updateJobRecord(box.io, job.id, (current) => {
      if (current === undefined) throw new Error('no record');
      const next = {
        ...current,
        started_ms: Date.now(),
        wrapper_pid: wrapper.pid,
        wrapper_start: wrapper.start,
        pgid,
        pgid_start: start + 1,
      };
      return { result: undefined, next };
    });
    const result = await runCli(['stop', job.id], box.env);
    expect(result).toMatchObject({
      code: 0,
      stdout: `${job.id} stopped (its process group was already gone)\n`,
      stderr: '',
    });
    expect(await alive(pgid)).toBe(true);
    expect(await record(box.io, job.id)).toMatchObject({ reason: 'stopped', signal: null });
  });

  test('an unknown job is a one-line error with exit 2', async () => {
    expect(await runCli(['stop', 'j_nope'], box.env)).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'dogsled: stop: unknown job "j_nope"\n',
    });
  });
});
