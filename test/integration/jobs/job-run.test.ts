// `dogsled run` without Herdr: the job runs detached under the same exec wrapper, `run --wait`
// streams its output and exits with its status, and `run` alone prints the started job whose record
// then runs to its end. --max ends a wait with `still running` (124) and leaves the job running.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { JobRecordSchema } from '../../../service/state/schemas/host-schemas.js';
import { ItemsSchema } from '../../../service/state/schemas/queue-items-schemas.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let lock: ServiceLock;
let work: string;

beforeEach(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
  await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 0 }));
  work = join(box.root, 'work');
  await mkdir(work);
});

afterEach(async () => {
  await lock.release();
  await box.cleanup();
});

async function record(id: string): Promise<JobRecord> {
  return JobRecordSchema.parse(JSON.parse(await readFile(join(box.state, 'jobs', `${id}.json`), 'utf8')));
}

async function ended(id: string): Promise<JobRecord> {
  return waitFor(
    `job ${id} to end`,
    async () => {
      const job = await record(id);
      return job.ended_ms === null ? undefined : job;
    },
    { timeoutMs: 10_000 },
  );
}

describe('run --wait without Herdr', () => {
  it("prints the job's output and exits with its status", async () => {
    const result = await runCli(['run', '--wait', '--', 'sh', '-c', 'echo hi; exit 3'], box.env, {
      cwd: work,
    });
    expect(result.stdout).toBe('hi\n');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(3);
  });

  it.each([
    ['exit 0', 0],
    ['exit 255', 255],
    ['echo out; echo err >&2; exit 7', 7],
    ['kill -TERM $$', 143],
  ])('`sh -c %j` exits %i', async (script, code) => {
    const result = await runCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', script], box.env);
    expect(result.code).toBe(code);
    if (code === 7) expect(result.stdout).toContain('out\n');
  });

  it("runs outside the caller's Herdr pane: the job does not inherit HERDR_PANE_ID", async () => {
    // Herdr is named but does not answer, so the job runs headless; exec must never take the
    // caller's pane for its own (it would report on it and close the caller's tab).
    const env = {
      ...box.env,
      HERDR_ENV: '1',
      HERDR_PANE_ID: 'w9:p9',
      HERDR_SOCKET_PATH: join(box.root, 'no-herdr.sock'),
    };
    const script = 'echo "pane=[$HERDR_PANE_ID] supervisor=[$DOGSLED_EXEC_SUPERVISOR]"';
    const result = await runCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', script], env);
    expect(result.stdout).toBe('pane=[] supervisor=[]\n');
    expect(result.code).toBe(0);
  });

  it("carries none of the caller's pane variables into a headless job: no tab, no workspace", async () => {
    const env = {
      ...box.env,
      HERDR_ENV: '1',
      HERDR_PANE_ID: 'w9:p9',
      HERDR_TAB_ID: 'w9:t9',
      HERDR_WORKSPACE_ID: 'w9',
      HERDR_SOCKET_PATH: join(box.root, 'no-herdr.sock'),
    };
    const script =
      'echo "[$HERDR_ENV][$HERDR_PANE_ID][$HERDR_TAB_ID][$HERDR_WORKSPACE_ID][$HERDR_SOCKET_PATH]"';
    const result = await runCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', script], env);
    expect(result.stdout).toBe(`[][][][][${join(box.root, 'no-herdr.sock')}]\n`);
    expect(result.code).toBe(0);
  });

  it('passes the arguments through unchanged and runs in --cwd', async () => {
    const args = ['a b', "it's", '$HOME', '--', '*'];
    const result = await runCli(
      [
        'run',
        '--wait',
        '--cwd',
        work,
        '--',
        'sh',
        '-c',
        'pwd; for a in "$@"; do echo "[$a]"; done',
        'sh',
        ...args,
      ],
      box.env,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${work}\n${args.map((a) => `[${a}]`).join('\n')}\n`);
  });

  it('streams output as the job writes it, before the job ends', async () => {
    const gate = join(box.root, 'gate');
    const script = `echo begun; while [ ! -e ${gate} ]; do sleep 0.05; done; echo done`;
    const child = startCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', script], box.env);
    await waitFor('begun', async () => (child.output().includes('begun\n') ? true : undefined), {
      timeoutMs: 10_000,
    });
    await writeFile(gate, '');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(child.output()).toBe('begun\ndone\n');
  });

  it('at --max prints still running and exits 124; the job keeps running to its end', async () => {
    // --max bounds the whole call, start-up and placement included: 4 s leaves room on a loaded box.
    const gate = join(box.root, 'gate');
    const script = `while [ ! -e ${gate} ]; do sleep 0.05; done; echo done`;
    const result = await runCli(
      ['run', '--wait', '--max', '4s', '--cwd', work, '--', 'sh', '-c', script],
      box.env,
    );
    expect(result.code).toBe(124);
    expect(result.stdout).toBe('still running\n');
    const id = /(j_[a-z2-7]{12})/.exec(result.stderr)?.[1] ?? '';
    expect((await record(id)).ended_ms).toBeNull();
    await writeFile(gate, '');
    expect(await ended(id)).toMatchObject({ exit_code: 0, reason: null });
    expect(await readFile(join(box.state, 'jobs', `${id}.log`), 'utf8')).toBe('done\n');
  });
});

describe('run without --wait', () => {
  it('prints the started job, and its record runs to the end with the requested limits', async () => {
    const result = await runCli(
      ['run', '--cwd', work, '--timeout', '1h', '--idle-timeout', '10m', '--', 'sh', '-c', 'echo hi; exit 4'],
      box.env,
    );
    expect(result.code).toBe(0);
    const id =
      /^started (j_[a-z2-7]{12}) on local \(headless\); follow it with: dogsled logs \1 --follow\n$/.exec(
        result.stdout,
      )?.[1];
    expect(id).toBeDefined();
    const job = await ended(id ?? '');
    expect(job).toMatchObject({
      command: ['sh', '-c', 'echo hi; exit 4'],
      cwd: work,
      host: 'local',
      owner: null,
      pane: null,
      exit_code: 4,
      timeout_ms: 3_600_000,
      idle_timeout_ms: 600_000,
      ticket: null,
    });
    expect(job.started_ms).not.toBeNull();
    expect(await readFile(join(box.state, 'jobs', `${id}.log`), 'utf8')).toBe('hi\n');
    const items = ItemsSchema.parse(JSON.parse(await readFile(join(box.state, 'items.json'), 'utf8'))).items;
    expect(items).toEqual([expect.objectContaining({ id: job.item, kind: 'job', job: id, host: 'local' })]);
  });

  it('prints the started job as JSON and reserves room on the host', async () => {
    // A job that lasts until stopped: its room is held while it runs (a job that ends at once may
    // give its room back before the reservation is read).
    const result = await runCli(['run', '--json', '--cwd', work, '--', 'sleep', '60'], box.env);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out).toEqual({
      queued: false,
      job: expect.stringMatching(/^j_/),
      item: expect.stringMatching(/^i_/),
      host: 'local',
      pane: null,
    });
    const placements = JSON.parse(await readFile(join(box.state, 'placements.json'), 'utf8'));
    expect(placements.reservations).toHaveLength(1);
    expect((await runCli(['stop', out.job], box.env)).code).toBe(0);
    await ended(out.job);
  });
});
