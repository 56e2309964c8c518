// The job supervisor's writes at once (updateJobRecordNow, endReservationsNow: update-now.ts) on the
// built CLI, where they cannot be made: placements.json a directory or a FIFO when the reservation
// ends (the waiting writer judges it, exec warns in one line and still saves its final record, never
// hangs); the job record itself a directory or a FIFO at the start claim (one line, exit 2, nothing
// run, no hang); a claimer frozen inside the record's lock while another claims (the other waits
// for the lock, then is refused: the job runs once).

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statePaths } from '../../../service/state/paths.js';
import { jobRecordPath, readJobRecord, writeJobRecord } from '../../../service/state/records/job-records.js';
import { CLI, exited, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { stopInLock, stoppedItself } from '../../helpers/frozen-lock.js';
import { jobFixture } from '../../helpers/job-fixtures.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let serial = 0;

beforeAll(async () => {
  box = await sandbox();
});

afterAll(async () => {
  await box?.cleanup();
});

describe('exec: the record and the reservation written at once, or by the waiting writer', () => {
  for (const kind of ['a directory', 'a FIFO'] as const) {
    it(`placements.json ${kind} when the reservation ends: one warning, the final record saved`, async () => {
      const state = `${box.root}/state-${kind === 'a FIFO' ? 'fifo' : 'dir'}`;
      const own = statePaths(state);
      mkdirSync(own.jobs, { recursive: true, mode: 0o700 });
      if (kind === 'a directory') mkdirSync(own.placements);
      else execFileSync('mkfifo', ['-m', '600', own.placements]);
      try {
        const job = jobFixture({
          id: `j_now${++serial}`,
          command: ['true'],
          cwd: box.root,
          owner: null,
          reservation: 'r_gone',
        });
        await writeJobRecord(own, job);
        const run = await runCli(['exec', job.id], { ...box.env, DOGSLED_STATE: state });
        expect(run.code).toBe(0);
        expect(run.stderr).toMatch(/cannot end reservation r_gone/);
        expect(
          run.stderr
            .trim()
            .split('\n')
            .filter((l) => l.includes('r_gone')),
        ).toHaveLength(1);
        const record = await readJobRecord(own, job.id);
        expect(record.exit_code).toBe(0);
        expect(record.ended_ms).not.toBeNull();
      } finally {
        await rm(own.placements, { recursive: true, force: true });
      }
    });
  }
});

describe('exec: the start claim where the record cannot be claimed at once', () => {
  for (const kind of ['a directory', 'a FIFO'] as const) {
    it(`the job record ${kind}: one line, exit 2, nothing run, no hang`, async () => {
      const state = `${box.root}/state-record-${kind === 'a FIFO' ? 'fifo' : 'dir'}`;
      const own = statePaths(state);
      mkdirSync(own.jobs, { recursive: true, mode: 0o700 });
      const id = `j_odd${++serial}`;
      const marker = join(box.root, `odd-ran-${serial}`);
      if (kind === 'a directory') mkdirSync(jobRecordPath(own, id));
      else execFileSync('mkfifo', ['-m', '600', jobRecordPath(own, id)]);
      const run = await runCli(['exec', id, '--', 'touch', marker], { ...box.env, DOGSLED_STATE: state });
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^dogsled: exec: /);
      await expect(stat(marker)).rejects.toThrow();
    });
  }

  it('a claimer frozen inside the record lock: the other waits for it, and the job runs once', async () => {
    const state = `${box.root}/state-frozen`;
    const own = statePaths(state);
    mkdirSync(own.jobs, { recursive: true, mode: 0o700 });
    const marker = join(box.root, 'frozen-ran');
    const command = ['sh', '-c', `echo ran >> ${marker}`];
    const job = jobFixture({ id: `j_frozen${++serial}`, command, cwd: box.root, owner: null });
    await writeJobRecord(own, job);
    const env = { ...box.env, DOGSLED_STATE: state };
    const execArgs = [CLI, 'exec', job.id, '--', ...command];
    // The first claimer (a supervisor alone, as a headless launch starts one) stops itself inside
    // the record's lock, between its read and its write; the second is a pane's wrapper.
    const holder = spawn(process.execPath, execArgs, {
      env: {
        ...env,
        DOGSLED_TEST: '1',
        DOGSLED_EXEC_SUPERVISOR: '1',
        ...stopInLock(jobRecordPath(own, job.id)),
      },
      stdio: 'ignore',
    });
    const held = exited(holder);
    await stoppedItself(holder.pid);
    const claimer = spawn(process.execPath, execArgs, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    claimer.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const claimed = exited(claimer);
    expect((await readJobRecord(own, job.id)).started_ms).toBeNull();
    holder.kill('SIGCONT');
    // The knob stops it in each of its locks of the record (the group, the final record): resumed
    // each time until it exits.
    let first: { code: number | null } | undefined;
    void held.then((ended) => {
      first = ended;
    });
    await waitFor('the frozen claimer to run the job and exit', async () => {
      if (first !== undefined) return true;
      const stat = await readFile(`/proc/${holder.pid}/stat`, 'utf8').catch(() => '');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T') holder.kill('SIGCONT');
      return undefined;
    });
    const second = await claimed;
    expect(first?.code).toBe(0);
    expect(second.code).toBe(2);
    // Refused as started or, when the quick job was over by the time it had the lock, as ended.
    expect(stderr).toMatch(
      new RegExp(
        `^dogsled: exec: job ${job.id} already (started \\(wrapper pid ${holder.pid}\\)|ended): a job runs once\\n$`,
      ),
    );
    expect(await readFile(marker, 'utf8')).toBe('ran\n');
    expect(await readJobRecord(own, job.id)).toMatchObject({ exit_code: 0, reason: null });
  });
});
