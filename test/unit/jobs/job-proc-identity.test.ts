import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { groupAlive, signalGroup } from '../../../service/jobs/proc-identity.js';
import { processAlive, readStat } from '../../../service/process/process-table.js';

import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { deadProcess, killGroup } from '../../integration/jobs/job-inspect-fixture.js';

const groups: number[] = [];

afterEach(() => {
  for (const pgid of groups.splice(0)) killGroup(pgid);
});

/** A detached group running `script`, with its leader's start time. */
async function group(script: string) {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  const pgid = child.pid as number;
  groups.push(pgid);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { pgid, start: (await readStat(pgid))?.start ?? null, exited };
}

describe('processAlive', () => {
  test('is true for a live process with its start time, false for another start time or a dead pid', async () => {
    const start = (await readStat(process.pid))?.start ?? null;
    expect(processAlive(process.pid, start)).toBe(true);
    expect(processAlive(process.pid, null)).toBe(true);
    expect(processAlive(process.pid, (start ?? 0) + 1)).toBe(false);
    const dead = await deadProcess();
    expect(processAlive(dead.pid, dead.start)).toBe(false);
  });
});

describe('groupAlive and signalGroup', () => {
  test('a group outlives its leader: its remaining members are still the job', async () => {
    const dir = await tempDir();
    const pidFile = join(dir, 'child.pid');
    const job = await group(`sleep 30 & echo $! > '${pidFile}'; exit 0`);
    await job.exited;
    const child = await waitFor("the grandchild's pid file", async () => {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      return /^\d+\n$/.test(text) ? Number(text) : undefined;
    });
    expect(await groupAlive(job.pgid, job.start)).toBe(true);
    expect(await signalGroup(job.pgid, job.start, 'SIGKILL')).toBe('signalled');
    await waitFor("the job's process group gone", async () =>
      (await groupAlive(job.pgid, job.start)) ? undefined : true,
    );
    // Dead: gone, or a zombie until whoever inherited the orphan reaps it.
    expect((await readStat(child))?.state ?? 'Z').toBe('Z');
  });

  test('a leader with another start time is not the job: nothing is signalled', async () => {
    const job = await group('sleep 30');
    expect(await groupAlive(job.pgid, (job.start ?? 0) + 1)).toBe(false);
    expect(await signalGroup(job.pgid, (job.start ?? 0) + 1, 'SIGKILL')).toBe('gone');
    expect((await readStat(job.pgid))?.state).not.toBe('Z');
  });

  test('a group that is gone, and pgids 0 and 1, are never signalled', async () => {
    const job = await group('exit 0');
    await job.exited;
    expect(await signalGroup(job.pgid, job.start, 'SIGTERM')).toBe('gone');
    expect(await signalGroup(0, null, 'SIGTERM')).toBe('gone');
    expect(await signalGroup(1, null, 'SIGTERM')).toBe('gone');
  });
});
