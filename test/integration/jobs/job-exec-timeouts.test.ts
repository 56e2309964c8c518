// `--timeout` and `--idle-timeout` as `exec` applies them from the job record: each kills the whole
// process group (a background grandchild too), records its reason and the signal, and keeps the
// output written before; a group that ignores SIGTERM gets SIGKILL after the grace.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { parseProcStat } from '../../../service/process/process-table.js';
import { type StatePaths, statePaths } from '../../../service/state/paths.js';
import { jobLogPath, readJobRecord, writeJobRecord } from '../../../service/state/records/job-records.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let paths: StatePaths;
let serial = 0;

beforeAll(async () => {
  box = await sandbox();
  paths = statePaths(box.state);
});

afterAll(async () => {
  await box?.cleanup();
});

async function newJob(command: string[], limits: Pick<JobRecord, 'timeout_ms' | 'idle_timeout_ms'>) {
  const record = jobFixture({ id: `j_limit${++serial}`, command, cwd: box.root, owner: null, ...limits });
  await writeJobRecord(paths, record);
  return record;
}

/** Gone, or a zombie nobody reaped yet (its parent, the job's shell, is dead). */
async function processGone(pid: number): Promise<boolean> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'))?.state === 'Z';
  } catch {
    return true;
  }
}

/** A shell that starts a background grandchild, saves its pid, prints `started` and waits. */
function withGrandchild(pidFile: string, rest: string): string[] {
  return ['sh', '-c', `sleep 60 & echo $! > ${pidFile}; echo started; ${rest}`];
}

describe.concurrent('limits from the record', () => {
  it('--timeout kills the whole group, the grandchild too, and records timeout', async () => {
    const pidFile = join(box.root, 'timeout.pid');
    const job = await newJob(withGrandchild(pidFile, 'sleep 60'), { timeout_ms: 400, idle_timeout_ms: null });
    const result = await runCli(['exec', job.id, '--', ...job.command], box.env);
    expect(result.code, result.stderr).toBe(143);
    expect(await readJobRecord(paths, job.id)).toMatchObject({
      exit_code: null,
      signal: 'SIGTERM',
      reason: 'timeout',
    });
    expect(await readFile(jobLogPath(paths, job.id), 'utf8')).toBe('started\n');
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    await waitFor('grandchild gone', async () => ((await processGone(grandchild)) ? true : undefined), {
      timeoutMs: 5_000,
    });
  });

  it('--idle-timeout kills the group once the output stops, not while it flows', async () => {
    const pidFile = join(box.root, 'idle.pid');
    // Output every 100 ms for a while (longer than the idle limit in total), then silence.
    const talk = 'for i in 1 2 3 4 5 6 7 8; do echo tick $i; sleep 0.1; done; sleep 60';
    const job = await newJob(withGrandchild(pidFile, talk), { timeout_ms: null, idle_timeout_ms: 300 });
    const result = await runCli(['exec', job.id, '--', ...job.command], box.env);
    expect(result.code, result.stderr).toBe(143);
    expect(await readJobRecord(paths, job.id)).toMatchObject({
      exit_code: null,
      signal: 'SIGTERM',
      reason: 'idle-timeout',
    });
    expect(await readFile(jobLogPath(paths, job.id), 'utf8')).toMatch(/^started\n(tick \d\n){8}$/);
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    await waitFor('grandchild gone', async () => ((await processGone(grandchild)) ? true : undefined), {
      timeoutMs: 5_000,
    });
  });

  it('SIGKILLs a group that ignores SIGTERM after the grace', async () => {
    const job = await newJob(['sh', '-c', 'trap "" TERM; echo started; sleep 60 & wait'], {
      timeout_ms: 300,
      idle_timeout_ms: null,
    });
    const result = await runCli(['exec', job.id, '--', ...job.command], box.env);
    expect(result.code, result.stderr).toBe(137);
    expect(await readJobRecord(paths, job.id)).toMatchObject({
      exit_code: null,
      signal: 'SIGKILL',
      reason: 'timeout',
    });
  });
});
