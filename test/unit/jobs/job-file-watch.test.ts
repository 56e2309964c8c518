// A waiter on a job's files (jobs/job-file-watch.ts) wakes for its record replaced (a rename onto
// ID.json) and its log written, not for what a writer leaves on the way (its lock directory, its
// temp file) nor for another job's files: each of those was a read of the record for nothing while
// the job's supervisor worked. Two waiters watch one directory, so the events of one stream reach
// both in order: the second waiter's wake says the first has heard everything written before it.

import { appendFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { JobChanges } from '../../../service/jobs/job-file-watch.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
const open: JobChanges[] = [];

beforeEach(async () => {
  dir = await tempDir('dogsled-job-watch-');
});

afterEach(async () => {
  for (const changes of open.splice(0)) changes.close();
  await rm(dir, { recursive: true, force: true });
});

/** Watches `id` with no polling to speak of: only file events wake it. */
function watching(id: string) {
  const changes = new JobChanges(dir, id, 600_000);
  open.push(changes);
  let woke = false;
  const next = () => {
    woke = false;
    const waited = changes.next().then(() => {
      woke = true;
    });
    return { waited, woke: () => woke };
  };
  return { next };
}

test("a writer's lock and temp file do not wake a waiter; the record's rename and the log do", async () => {
  const job = watching('j_aaaaaaaaaaaa');
  const other = watching('j_bbbbbbbbbbbb');
  const wait = job.next();
  // What updateJobRecord does on the way to a rename, and another job's record.
  await mkdir(join(dir, 'j_aaaaaaaaaaaa.json.lock'));
  await writeFile(join(dir, 'j_aaaaaaaaaaaa.json.lock', 'owner'), '{}');
  await writeFile(join(dir, 'j_aaaaaaaaaaaa.json.tmp-1-2-3'), '{}');
  await writeFile(join(dir, 'j_cccccccccccc.json'), '{}');
  const sentinel = other.next();
  await writeFile(join(dir, 'j_bbbbbbbbbbbb.json'), '{}');
  await sentinel.waited;
  expect(wait.woke()).toBe(false);
  await rename(join(dir, 'j_aaaaaaaaaaaa.json.tmp-1-2-3'), join(dir, 'j_aaaaaaaaaaaa.json'));
  await wait.waited;
  const log = job.next();
  await appendFile(join(dir, 'j_aaaaaaaaaaaa.log'), 'output\n');
  await log.waited;
  expect(log.woke()).toBe(true);
});
