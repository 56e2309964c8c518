import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { jobLogPath } from '../../../service/state/records/job-records.js';
import { CLI, exited, runCli, startCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import {
  createJob,
  type JobSandbox,
  jobSandbox,
  killGroup,
  record,
  runningJob,
  startJob,
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

/** Runs the CLI and keeps stdout as bytes. */
function runBytes(args: string[]): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: box.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
  });
}

describe('dogsled logs', () => {
  test("prints a finished job's log as its raw bytes, escapes and invalid UTF-8 included", async () => {
    const job = await createJob(box.io);
    const bytes = Buffer.concat([
      Buffer.from('plain line\n\x1b[31mred\x1b[0m\r\n'),
      Buffer.from([0xff, 0xfe, 0x00, 0x0a]),
      Buffer.alloc(200_000, 'x'),
    ]);
    await writeFile(jobLogPath(box.io.paths, job.id), bytes);
    const result = await runBytes(['logs', job.id]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.equals(bytes)).toBe(true);
  });

  test('prints what a job wrote after it ended, and nothing for a job without a log yet', async () => {
    const job = await runningJob(box.io, 'echo one; echo two >&2; exit 3');
    await job.ended;
    expect(await runCli(['logs', job.id], box.env)).toEqual({
      code: 0,
      signal: null,
      stdout: 'one\ntwo\n',
      stderr: '',
    });
    const created = await createJob(box.io);
    expect(await runCli(['logs', created.id], box.env)).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  test('--follow prints bytes written before and after it started and exits once the job ended', async () => {
    const go = join(box.root, 'go');
    const job = await runningJob(
      box.io,
      `echo before; while [ ! -e '${go}' ]; do sleep 0.05; done; echo after`,
    );
    groups.push(job.pgid);
    const follower = startCli(['logs', job.id, '--follow'], box.env);
    await waitFor('before', async () => (follower.output().includes('before') ? true : undefined), {
      timeoutMs: 10_000,
    });
    expect(follower.exitCode).toBeNull();
    await writeFile(go, '');
    expect(await exited(follower)).toEqual({ code: 0, signal: null });
    expect(follower.output()).toBe('before\nafter\n');
    expect((await record(box.io, job.id)).exit_code).toBe(0);
  });

  test('--follow waits for a created job to start and write its log', async () => {
    const job = await createJob(box.io, { command: ['sh', '-c', 'echo started'] });
    const follower = startCli(['logs', job.id, '--follow'], box.env);
    // Give the follower time to find no log; it must keep waiting, not exit.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(follower.exitCode).toBeNull();
    const started = await startJob(box.io, job.id, 'echo started');
    groups.push(started.pgid);
    expect(await exited(follower)).toEqual({ code: 0, signal: null });
    expect(follower.output()).toBe('started\n');
  });

  test('--follow ends when the job wrapper died without writing the end', async () => {
    const job = await runningJob(box.io, 'echo partial; sleep 30', { wrapper: 'dead' });
    groups.push(job.pgid);
    const result = await runCli(['logs', job.id, '--follow'], box.env);
    expect(result).toMatchObject({ code: 0, stdout: 'partial\n', stderr: '' });
    expect((await record(box.io, job.id)).reason).toBe('wrapper lost');
  });

  test('an unknown job is a one-line error with exit 2, with or without --follow', async () => {
    for (const args of [
      ['logs', 'j_nope'],
      ['logs', 'j_nope', '--follow'],
    ]) {
      expect(await runCli(args, box.env)).toMatchObject({
        code: 2,
        stdout: '',
        stderr: 'dogsled: logs: unknown job "j_nope"\n',
      });
    }
  });
});
