import { appendFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { followJobLog } from '../../../service/jobs/job-logs.js';
import { waitForJob } from '../../../service/jobs/job-wait.js';
import { reconcileJob } from '../../../service/jobs/reconcile.js';
import { jobLogPath, readJobRecord, updateJobRecord } from '../../../service/state/records/job-records.js';
import {
  createJob,
  deadProcess,
  type JobSandbox,
  jobSandbox,
  self,
} from '../../integration/jobs/job-inspect-fixture.js';

let box: JobSandbox;

beforeEach(async () => {
  box = await jobSandbox();
});

afterEach(async () => {
  await box.cleanup();
});

async function start(id: string, wrapper: { pid: number; start: number | null }) {
  await updateJobRecord(box.io, id, (current) => {
    if (current === undefined) throw new Error('no record');
    return {
      result: undefined,
      next: { ...current, started_ms: Date.now(), wrapper_pid: wrapper.pid, wrapper_start: wrapper.start },
    };
  });
}

async function end(id: string, exitCode: number) {
  await updateJobRecord(box.io, id, (current) => {
    if (current === undefined) throw new Error('no record');
    return { result: undefined, next: { ...current, ended_ms: Date.now(), exit_code: exitCode } };
  });
}

describe('followJobLog', () => {
  test('writes every byte in order and resolves with the final record once ended and drained', async () => {
    const job = await createJob(box.io);
    await start(job.id, await self());
    const log = jobLogPath(box.io.paths, job.id);
    await appendFile(log, 'a');
    const chunks: string[] = [];
    const following = followJobLog(box.io, job.id, {
      write: (chunk) => {
        chunks.push(Buffer.from(chunk).toString());
      },
    });
    await appendFile(log, 'b');
    await appendFile(log, 'c');
    await end(job.id, 4);
    const final = await following;
    expect(final).toMatchObject({ id: job.id, exit_code: 4 });
    expect(chunks.join('')).toBe('abc');
  });

  test('rejects with the reason of its aborted signal and leaves the job alone', async () => {
    const job = await createJob(box.io);
    const controller = new AbortController();
    const following = followJobLog(box.io, job.id, { write: () => {}, signal: controller.signal });
    const reason = new Error('deadline');
    setTimeout(() => controller.abort(reason), 50);
    await expect(following).rejects.toBe(reason);
    await expect(waitForJob(box.io, job.id, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });
});

describe('reconcileJob', () => {
  test('leaves a job with a live wrapper, and one that ended, exactly as they are', async () => {
    const running = await createJob(box.io);
    await start(running.id, await self());
    const live = await readJobRecord(box.io.paths, running.id);
    expect(await reconcileJob(box.io, live)).toEqual(live);
    await end(running.id, 0);
    const ended = await waitForJob(box.io, running.id);
    expect(await reconcileJob(box.io, ended)).toEqual(ended);
  });

  test('ends a started job whose wrapper is dead as wrapper lost', async () => {
    const job = await createJob(box.io);
    await start(job.id, await deadProcess());
    const final = await waitForJob(box.io, job.id);
    expect(final).toMatchObject({ reason: 'wrapper lost', exit_code: null, signal: null });
    expect(final.ended_ms).toBeGreaterThanOrEqual(final.started_ms ?? 0);
  });
});
