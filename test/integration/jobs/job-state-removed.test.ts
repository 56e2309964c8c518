// A job whose state dir is removed while it runs (a host's state wiped, a test's sandbox removed
// under a job's wrapper that outlived it): the wrapper and its supervisor end without making the
// state dir again. Their late writes (the final record, the wrapper's check for an unclaimed job)
// find no jobs/ and leave nothing behind; the end is still reported.

import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statePaths } from '../../../service/state/paths.js';
import { writeJobRecord } from '../../../service/state/records/job-records.js';
import { exited, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let work: string;

beforeEach(async () => {
  box = await sandbox();
  work = join(box.root, 'work');
  await mkdir(work);
});
afterEach(() => box.cleanup());

describe('a job whose state dir is removed while it runs', () => {
  it('ends without making the state dir again, as the pane wrapper and as the supervisor alone', async () => {
    for (const supervisor of [false, true]) {
      const paths = statePaths(box.state);
      const id = supervisor ? 'j_removedsuper' : 'j_removedwrap1';
      const marker = join(work, `${id}.started`);
      await writeJobRecord(
        paths,
        // Runs until the test removes its marker, after the state dir: no timer for a loaded box to outrun.
        jobFixture({
          id,
          command: ['sh', '-c', `touch ${marker}; while [ -e ${marker} ]; do sleep 0.05; done`],
          cwd: work,
          owner: null,
        }),
      );
      const env = supervisor ? { ...box.env, DOGSLED_EXEC_SUPERVISOR: '1' } : box.env;
      const child = startCli(['exec', id], env, work);
      await waitFor('the job to start', async () => (existsSync(marker) ? true : undefined), {
        timeoutMs: 20_000,
      });
      // Its claim is written before the command runs: the record says started.
      expect(JSON.parse(await readFile(join(paths.jobs, `${id}.json`), 'utf8')).started_ms).not.toBeNull();
      // A write of the running job's (its record's temp file) can land between rm's listing and
      // its rmdir: rm tries again, as a host's wipe would.
      await rm(box.state, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
      await rm(marker);
      const end = await exited(child);
      expect(end.code, child.output()).toBe(0);
      expect(child.output()).toContain('its record disappeared before the end could be saved');
      expect(existsSync(box.state), `${supervisor ? 'supervisor' : 'wrapper'}: the state dir is back`).toBe(
        false,
      );
    }
  });
});
