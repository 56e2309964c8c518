// The job supervisor's writes at once (updateJobRecordNow, endReservationsNow: update-now.ts) on the
// built CLI, where they cannot be made: placements.json a directory or a FIFO when the reservation
// ends (the waiting writer judges it, exec warns in one line and still saves its final record, never
// hangs). A writer frozen inside the record's lock is job-launch-files.test.ts's.

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statePaths } from '../../../service/state/paths.js';
import { readJobRecord, writeJobRecord } from '../../../service/state/records/job-records.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';

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
