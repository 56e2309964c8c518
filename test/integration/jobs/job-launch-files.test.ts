// A launch writes the owner's item, checks the directory and writes the caller's environment side by
// side once the record is created (jobs/job-launch.ts): one sync's wait instead of two on every run.
// Shown with a writer held inside items.json's lock (the LOCK_HOLD knob): the environment file is
// written while the item still waits. A directory gone meanwhile still fails the launch as before:
// the record ends `launch failed`, the item closes, and the environment is removed once written.
// With the locks free, the record and the item are written at once (update-now.ts) and the
// environment unsynced: the files are whole and 0600 and no lock or temp file is left; a record
// already there still refuses the launch, a directory in the environment's place fails it undone,
// and a record whose lock is held goes to the waiting writer.

import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
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

/** A launch of `true` in the sandbox with job and item ids of its own; `afterRecord` as launchJob takes it. */
function launchIn(ids: { job: string; item: string }, afterRecord?: () => Promise<void>) {
  return launchJob(
    {
      paths: statePaths(box.state),
      now: Date.now,
      warn: () => undefined,
      env: box.env,
      home: box.home,
      self: [process.execPath, CLI],
      ...(afterRecord === undefined ? {} : { afterRecord }),
    },
    {
      jobId: ids.job,
      itemId: ids.item,
      request: {
        command: ['true'],
        cwd: box.root,
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
}

/** What is left in a directory besides the files named: locks, temp files. */
async function leftovers(dir: string, keep: (name: string) => boolean): Promise<string[]> {
  return (await readdir(dir)).filter((name) => !keep(name));
}

test('with the locks free the record, the item and the environment are written at once, whole and 0600', async () => {
  const paths = statePaths(box.state);
  const ids = { job: newId('j'), item: newId('i') };
  const envFile = join(paths.jobs, `${ids.job}.env`);
  let seen: { env: unknown; mode: number; record: unknown; items: unknown; left: string[] } | undefined;
  const error = await launchIn(ids, async () => {
    seen = {
      env: JSON.parse(await readFile(envFile, 'utf8')),
      mode: (await stat(envFile)).mode & 0o777,
      record: JSON.parse(await readFile(join(paths.jobs, `${ids.job}.json`), 'utf8')),
      items: JSON.parse(await readFile(paths.items, 'utf8')).items,
      left: [
        ...(await leftovers(paths.jobs, (name) => /^j_[a-z0-9]+\.(json|env|log)$/.test(name))),
        ...(await leftovers(paths.dir, (name) => !/\.(lock|holding)$|\.tmp-/.test(name))),
      ],
    };
    // Stopped here: the pane is never opened, and the launch is undone as any failure is.
    throw new Error('stopped before the pane');
  });
  expect(String(error)).toMatch(/stopped before the pane/);
  expect(seen?.env).toEqual({ version: 1, env: { FOO: 'bar' } });
  expect(seen?.mode).toBe(0o600);
  expect(seen?.record).toMatchObject({ id: ids.job, started_ms: null, ended_ms: null, item: ids.item });
  expect(seen?.items).toContainEqual(
    expect.objectContaining({ id: ids.item, job: ids.job, closed_ms: null }),
  );
  expect(seen?.left).toEqual([]);
  expect(await exists(envFile)).toBe(false);
}, 60_000);

test('a record already there refuses the launch before the item or the environment is written', async () => {
  const paths = statePaths(box.state);
  const first = { job: newId('j'), item: newId('i') };
  // A launch undone after its record was written leaves an ended record of that id.
  await launchIn(first, async () => {
    throw new Error('stopped before the pane');
  });
  const record = join(paths.jobs, `${first.job}.json`);
  const before = await readFile(record, 'utf8');
  const again = { job: first.job, item: newId('i') };
  const error = await launchIn(again);
  expect(String(error)).toMatch(new RegExp(`job ${first.job} already has a record`));
  expect(await readFile(record, 'utf8')).toBe(before);
  expect(await exists(join(paths.jobs, `${first.job}.env`))).toBe(false);
  const items = JSON.parse(await readFile(paths.items, 'utf8')).items;
  expect(items.some((item: { id: string }) => item.id === again.item)).toBe(false);
}, 60_000);

test('a directory where the environment goes fails the launch, undone, with no temp file left', async () => {
  const paths = statePaths(box.state);
  const ids = { job: newId('j'), item: newId('i') };
  const envFile = join(paths.jobs, `${ids.job}.env`);
  await mkdir(envFile, { recursive: true });
  const error = await launchIn(ids);
  expect(String(error)).toMatch(
    new RegExp(`cannot launch job ${ids.job} on local: cannot write .*${ids.job}\\.env`),
  );
  const record = JSON.parse(await readFile(join(paths.jobs, `${ids.job}.json`), 'utf8'));
  expect(record).toMatchObject({
    started_ms: null,
    reason: expect.stringMatching(/^launch failed: cannot write/),
  });
  const items = JSON.parse(await readFile(paths.items, 'utf8')).items;
  expect(items).toContainEqual(expect.objectContaining({ id: ids.item, close_reason: 'launch failed' }));
  expect((await readdir(paths.jobs)).filter((name) => name.includes('.tmp-'))).toEqual([]);
}, 60_000);

test('a job record whose lock is held is written by the waiting writer once it is free', async () => {
  const paths = statePaths(box.state);
  const ids = { job: newId('j'), item: newId('i') };
  const knobs = {
    DOGSLED_TEST: '1',
    DOGSLED_TEST_LOCK_HOLD_FILE: `${ids.job}.json`,
    DOGSLED_TEST_LOCK_HOLD_MS: '300',
  };
  const saved = Object.fromEntries(Object.keys(knobs).map((key) => [key, process.env[key]]));
  Object.assign(process.env, knobs);
  let record: unknown;
  try {
    const error = await launchIn(ids, async () => {
      record = JSON.parse(await readFile(join(paths.jobs, `${ids.job}.json`), 'utf8'));
      throw new Error('stopped before the pane');
    });
    expect(String(error)).toMatch(/stopped before the pane/);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  expect(record).toMatchObject({ id: ids.job, started_ms: null, ended_ms: null });
}, 60_000);
