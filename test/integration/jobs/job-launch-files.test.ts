// A launch writes the owner's item, checks the directory and writes the caller's environment side by
// side once the record is created (jobs/job-launch.ts): one sync's wait instead of two on every run.
// Shown with a writer held inside items.json's lock (the LOCK_HOLD knob): the environment file is
// written while the item still waits. A directory gone meanwhile still fails the launch as before:
// the record ends `launch failed`, the item closes, and the environment is removed once written.

import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { launchJob } from '../../../service/jobs/job-launch.js';
import { newId } from '../../../service/state/engine/ids.js';
import { ensureStateDir, statePaths } from '../../../service/state/paths.js';
import { Deadline } from '../../../service/time/deadline.js';
import { CLI, type Sandbox, sandbox } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
const KNOBS = {
  DOGSLED_TEST: '1',
  DOGSLED_TEST_LOCK_HOLD_FILE: 'items.json',
  DOGSLED_TEST_LOCK_HOLD_MS: '5000',
};

beforeAll(async () => {
  box = await sandbox();
  await ensureStateDir(box.state);
});

afterAll(async () => {
  await box?.cleanup();
});

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

test('the environment is written beside the item, and removed when the directory is gone', async () => {
  const paths = statePaths(box.state);
  const ids = { job: newId('j'), item: newId('i') };
  const envFile = join(paths.jobs, `${ids.job}.env`);
  const holding = join(paths.dir, 'items.json.holding');
  // The store reads the knob from this process's environment.
  const saved = Object.fromEntries(Object.keys(KNOBS).map((key) => [key, process.env[key]]));
  Object.assign(process.env, KNOBS);
  let launch: Promise<unknown> | undefined;
  try {
    launch = launchJob(
      {
        paths,
        now: Date.now,
        warn: () => undefined,
        env: box.env,
        home: box.home,
        self: [process.execPath, CLI],
      },
      {
        jobId: ids.job,
        itemId: ids.item,
        request: {
          command: ['true'],
          cwd: join(box.root, 'gone'),
          timeout_ms: null,
          idle_timeout_ms: null,
          caller_workspace: null,
        },
        owner: null,
        host: 'local',
        ticket: null,
        reservation: null,
        env: { FOO: 'bar' },
      },
      new Deadline(30_000),
    ).catch((error: unknown) => error);
    await waitFor('the item held inside its lock', () => exists(holding), { timeoutMs: 15_000 });
    await waitFor('the environment written', () => exists(envFile), { timeoutMs: 15_000 });
    // Written while the item's write was still held.
    expect(await exists(holding)).toBe(true);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const error = await launch;
  expect(String(error)).toMatch(/cannot launch job .*: directory .*gone does not exist/);
  expect(await exists(envFile)).toBe(false);
  const record = JSON.parse(await readFile(join(paths.jobs, `${ids.job}.json`), 'utf8'));
  expect(record.reason).toMatch(/^launch failed: directory .* does not exist$/);
  const items = JSON.parse(await readFile(paths.items, 'utf8')).items;
  expect(items).toMatchObject([{ id: ids.item, close_reason: 'launch failed' }]);
}, 60_000);
