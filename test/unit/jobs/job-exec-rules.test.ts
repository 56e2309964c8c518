// The exec wrapper's small decisions: when a record may not run (started, ended, another command),
// which Herdr pane it reports on, and what a command that cannot be spawned records.

import { closeSync, openSync } from 'node:fs';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { startChild } from '../../../service/jobs/supervisor/exec-child.js';
import { jobPaneOf } from '../../../service/jobs/supervisor/exec-pane-state.js';
import { refusalOf } from '../../../service/jobs/supervisor/exec-record.js';
import { tempDir } from '../../helpers/tree.js';

const created: JobRecord = {
  version: 1,
  id: 'j_1',
  command: ['make', 'test'],
  cwd: '/tmp',
  host: 'local',
  owner: null,
  pane: null,
  created_ms: 1,
  started_ms: null,
  ended_ms: null,
  exit_code: null,
  signal: null,
  reason: null,
};

describe('refusalOf', () => {
  it('lets a created record run its own command', () => {
    expect(refusalOf(created, ['make', 'test'])).toBeUndefined();
  });

  it('refuses a record that started or ended: a job runs once', () => {
    expect(refusalOf({ ...created, started_ms: 2, wrapper_pid: 77 }, ['make', 'test'])).toBe(
      'job j_1 already started (wrapper pid 77): a job runs once',
    );
    expect(refusalOf({ ...created, started_ms: 2, ended_ms: 3 }, ['make', 'test'])).toBe(
      'job j_1 already ended: a job runs once',
    );
    // Stopped before it started: ended without a start.
    expect(refusalOf({ ...created, ended_ms: 3, reason: 'stopped' }, ['make', 'test'])).toBe(
      'job j_1 already ended: a job runs once',
    );
  });

  it('refuses any other argv, even one that a shell would print the same', () => {
    expect(refusalOf(created, ['make'])).toBe('job j_1 runs make test, not make');
    expect(refusalOf(created, ['make test'])).toBe("job j_1 runs make test, not 'make test'");
    expect(refusalOf(created, ['make', 'test', ''])).toBe("job j_1 runs make test, not make test ''");
  });

  it('shows job text on one line without terminal escapes', () => {
    expect(refusalOf(created, ['make', '\u001b]0;title\u0007x\ny'])).toBe(
      "job j_1 runs make test, not make 'x y'",
    );
  });
});

describe('jobPaneOf', () => {
  const inside = { HERDR_ENV: '1', HERDR_PANE_ID: 'w1:p2' };

  it('is the wrapper pane inside Herdr when the record names it or no pane yet', () => {
    expect(jobPaneOf(inside, { pane: null })).toBe('w1:p2');
    expect(jobPaneOf(inside, { pane: 'w1:p2' })).toBe('w1:p2');
  });

  it('is nothing headless, without a pane id, or for a record that names another pane', () => {
    expect(jobPaneOf({}, { pane: null })).toBeUndefined();
    expect(jobPaneOf({ HERDR_PANE_ID: 'w1:p2' }, { pane: null })).toBeUndefined();
    expect(jobPaneOf({ HERDR_ENV: '1' }, { pane: null })).toBeUndefined();
    expect(jobPaneOf(inside, { pane: 'w3:p1' })).toBeUndefined();
  });
});

describe('a command that cannot be spawned', () => {
  let dir: string;
  let logFd: number;

  beforeAll(async () => {
    dir = await tempDir('dogsled-exec-spawn-');
    logFd = openSync(join(dir, 'log'), 'a', 0o600);
  });

  afterAll(async () => {
    closeSync(logFd);
    await rm(dir, { recursive: true, force: true });
  });

  const plan = (command: string[], cwd = dir) => ({
    command,
    cwd,
    env: process.env,
    logFd,
    timeoutMs: null,
    idleTimeoutMs: null,
  });

  it('is not found: exit 127', async () => {
    expect(await startChild(plan(['dogsled-no-such-command', 'x']))).toEqual({
      kind: 'failed',
      end: { exit_code: 127, signal: null, reason: 'not found: dogsled-no-such-command' },
      message: 'not found: dogsled-no-such-command',
    });
  });

  it('cannot run a file that is not executable: exit 126', async () => {
    const script = join(dir, 'script.sh');
    await writeFile(script, 'echo hi\n');
    await chmod(script, 0o644);
    const failed = await startChild(plan([script]));
    expect(failed).toMatchObject({ kind: 'failed', end: { exit_code: 126, signal: null } });
    expect(failed.kind === 'failed' && failed.end.reason).toBe(`cannot run: ${script} (EACCES)`);
  });

  it('is a launch failure, not a missing command, when the directory is gone', async () => {
    const gone = join(dir, 'gone');
    expect(await startChild(plan(['true'], gone))).toEqual({
      kind: 'failed',
      end: { exit_code: null, signal: null, reason: `launch failed: directory ${gone} does not exist` },
      message: `directory ${gone} does not exist`,
    });
  });
});
