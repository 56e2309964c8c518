// The supervisor's spawn through the process handle (service/jobs/supervisor/exec-spawn.ts), against
// node:child_process itself and on the built CLI (a supervisor alone, as a headless launch starts
// one): a command that is missing, not executable or a directory, a missing working directory, a
// command killed by a signal, one that closes its stdout and stderr, an argument past the kernel's
// limit (E2BIG, thrown as child_process throws it), a NUL in an argument, and a huge environment.

import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { spawnCommand, spawnsByHandle } from '../../../service/jobs/supervisor/exec-spawn.js';
import { verifiedNode } from '../../../service/process/node-binding.js';
import { type StatePaths, statePaths } from '../../../service/state/paths.js';
import { jobLogPath, readJobRecord, writeJobRecord } from '../../../service/state/records/job-records.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';

let box: Sandbox;
let paths: StatePaths;
let serial = 0;

beforeAll(async () => {
  box = await sandbox();
  paths = statePaths(box.state);
  writeFileSync(join(box.root, 'plain.txt'), 'not a program\n', { mode: 0o644 });
  mkdirSync(join(box.root, 'a-dir'));
});

afterAll(async () => {
  await box?.cleanup();
});

/** What node:child_process reports for the same start: its 'error', or its throw. */
function byChildProcess(file: string, args: string[], cwd: string): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    try {
      const child = spawn(file, args, {
        cwd,
        env: {},
        detached: true,
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      child.once('error', (error: NodeJS.ErrnoException) => resolve({ emitted: fields(error) }));
      child.once('spawn', () => resolve({ spawned: true }));
    } catch (error) {
      resolve({ thrown: fields(error as NodeJS.ErrnoException) });
    }
  });
}

async function byHandle(file: string, args: string[], cwd: string): Promise<Record<string, unknown>> {
  try {
    const spawned = await spawnCommand({
      file,
      args,
      cwd,
      env: {},
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    if (spawned.kind === 'failed') return { emitted: fields(spawned.error) };
    await spawned.ended;
    return { spawned: true };
  } catch (error) {
    return { thrown: fields(error as NodeJS.ErrnoException) };
  }
}

function fields(error: NodeJS.ErrnoException & { spawnargs?: string[] }) {
  const { message, code, errno, syscall, path, spawnargs } = error;
  return { name: error.constructor.name, message, code, errno, syscall, path, spawnargs };
}

describe('exec-spawn: the process handle answers as node:child_process does', () => {
  const cases: [string, () => [string, string[], string]][] = [
    ['a missing command', () => ['no-such-command-xyz', ['a'], box.root]],
    ['a file that is not executable', () => [join(box.root, 'plain.txt'), [], box.root]],
    ['a directory', () => [join(box.root, 'a-dir'), [], box.root]],
    ['a missing working directory', () => ['true', [], join(box.root, 'gone')]],
    ['a working directory that is a file', () => ['true', [], join(box.root, 'plain.txt')]],
    ['an argument past the kernel limit (E2BIG)', () => ['true', ['x'.repeat(200_000)], box.root]],
    ['a NUL in an argument', () => ['true', ['a\u0000b'], box.root]],
    ['a command that runs', () => ['true', [], box.root]],
  ];
  for (const [what, plan] of cases) {
    it(what, async () => {
      const [file, args, cwd] = plan();
      const expected = await byChildProcess(file, args, cwd);
      const got = await byHandle(file, args, cwd);
      // Node's own errors are its ErrnoException or TypeError; ours are plain Errors of the same fields.
      const strip = (r: Record<string, unknown>) =>
        JSON.parse(JSON.stringify(r, (k, v) => (k === 'name' ? undefined : v)));
      expect(strip(got)).toEqual(strip(expected));
    });
  }

  it('ends with the exit code, or with the signal and no code', async () => {
    const run = async (script: string) => {
      const spawned = await spawnCommand({
        file: 'sh',
        args: ['-c', script],
        cwd: box.root,
        env: { PATH: process.env.PATH },
        detached: true,
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      if (spawned.kind !== 'running') throw new Error('did not start');
      return spawned.ended;
    };
    expect(await run('exit 7')).toEqual({ code: 7, signal: null });
    expect(await run('kill -TERM $$')).toEqual({ code: null, signal: 'SIGTERM' });
    expect(await run('kill -KILL $$')).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('uses the handle on each Node major the tests cover, and detaches only when asked', async () => {
    // A wrong call of the handle aborts the process (Node 24's positional spawn): each covered
    // major must take the handle's path, so that CI's runs on 22 and 24 test it.
    expect(spawnsByHandle()).toBe(verifiedNode());
    const group = async (detached: boolean) => {
      const out = join(box.root, `pgid-${++serial}.txt`);
      const fd = openSync(out, 'a', 0o600);
      const spawned = await spawnCommand({
        file: 'sh',
        args: ['-c', 'echo "$$ $(ps -o pgid= -p $$)"'],
        cwd: box.root,
        env: { PATH: process.env.PATH },
        detached,
        stdio: ['ignore', fd, 'ignore'],
      });
      if (spawned.kind !== 'running') throw new Error('did not start');
      await spawned.ended;
      const [pid, pgid] = readFileSync(out, 'utf8').trim().split(/\s+/).map(Number);
      return { ownGroup: pid === pgid, pid, spawnedPid: spawned.pid };
    };
    const detached = await group(true);
    expect(detached.ownGroup).toBe(true);
    expect(detached.pid).toBe(detached.spawnedPid);
    expect((await group(false)).ownGroup).toBe(false);
  });

  it('hands the child its environment and descriptors, and a huge environment whole', async () => {
    const out = join(box.root, `env-${++serial}.txt`);
    const fd = openSync(out, 'a', 0o600);
    const big = 'v'.repeat(100_000);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, UNSET: undefined };
    for (let i = 0; i < 10; i++) env[`BIG_${i}`] = big;
    const spawned = await spawnCommand({
      file: 'sh',
      args: ['-c', 'echo "$BIG_9" | wc -c; env | grep -c "^BIG_"; echo "[$UNSET]" >&2'],
      cwd: box.root,
      env,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    if (spawned.kind !== 'running') throw new Error('did not start');
    expect(await spawned.ended).toEqual({ code: 0, signal: null });
    expect(
      readFileSync(out, 'utf8')
        .split('\n')
        .map((l) => l.trim()),
    ).toEqual(['100001', '10', '[]', '']);
  });
});

describe('exec: a supervisor alone starts what the record says, as before', () => {
  async function supervise(
    command: string[],
    extra: Partial<JobRecord> = {},
  ): Promise<{ code: number | null; stderr: string; record: JobRecord; log: string }> {
    const job = jobFixture({ id: `j_spawn${++serial}`, command, cwd: box.root, owner: null, ...extra });
    await writeJobRecord(paths, job);
    const run = await runCli(['exec', job.id], { ...box.env, DOGSLED_EXEC_SUPERVISOR: '1' });
    const record = await readJobRecord(paths, job.id);
    const log = (() => {
      try {
        return readFileSync(jobLogPath(paths, job.id), 'utf8');
      } catch {
        return '';
      }
    })();
    return { code: run.code, stderr: run.stderr, record, log };
  }

  it('a missing command: 127, its reason and one line', async () => {
    const got = await supervise(['no-such-command-xyz']);
    expect(got.code).toBe(127);
    expect(got.record.exit_code).toBe(127);
    expect(got.record.reason).toBe('not found: no-such-command-xyz');
    expect(got.stderr).toBe('dogsled: exec: not found: no-such-command-xyz\n');
  });

  it('a file that is not executable, and a directory: 126, EACCES', async () => {
    for (const file of [join(box.root, 'plain.txt'), join(box.root, 'a-dir')]) {
      const got = await supervise([file]);
      expect(got.code).toBe(126);
      expect(got.record.reason).toBe(`cannot run: ${file} (EACCES)`);
      expect(got.stderr).toBe(`dogsled: exec: cannot run: ${file} (EACCES)\n`);
    }
  });

  it('a missing working directory: launch failed, no exit code', async () => {
    const cwd = join(box.root, 'gone');
    const got = await supervise(['true'], { cwd });
    expect(got.record.exit_code).toBeNull();
    expect(got.record.reason).toBe(`launch failed: directory ${cwd} does not exist`);
    expect(got.stderr).toBe(`dogsled: exec: directory ${cwd} does not exist\n`);
  });

  it('a command killed by a signal: no exit code, the signal, 128 + its number', async () => {
    const got = await supervise(['sh', '-c', 'kill -KILL $$']);
    expect(got.code).toBe(137);
    expect(got.record).toMatchObject({ exit_code: null, signal: 'SIGKILL', reason: null });
  });

  it('a command that closes its stdout and stderr runs on to its own end', async () => {
    const got = await supervise(['sh', '-c', 'echo before; exec >&- 2>&-; sleep 0.2; exit 5']);
    expect(got.code).toBe(5);
    expect(got.record.exit_code).toBe(5);
    expect(got.log).toBe('before\n');
  });

  it('an argument past the kernel limit: launch failed, the record ended saying so, 125', async () => {
    const got = await supervise(['true', 'x'.repeat(200_000)]);
    const why = "launch failed: its arguments and environment are past the system's limit (E2BIG)";
    expect(got.code).toBe(125);
    expect(got.record).toMatchObject({ exit_code: null, signal: null, reason: why });
    expect(got.record.ended_ms).not.toBeNull();
    expect(got.stderr).toBe(`dogsled: exec: ${why}\n`);
  });

  it('a working directory that is a file: launch failed, the record ended saying so, 125', async () => {
    const cwd = join(box.root, 'plain.txt');
    const got = await supervise(['true'], { cwd });
    const why = `launch failed: ${cwd} is not a directory`;
    expect(got.code).toBe(125);
    expect(got.record).toMatchObject({ exit_code: null, signal: null, reason: why });
    expect(got.record.ended_ms).not.toBeNull();
    expect(got.stderr).toBe(`dogsled: exec: ${why}\n`);
  });

  it('a not executable file made executable runs (nothing about the file is remembered)', async () => {
    const script = join(box.root, `script-${++serial}.sh`);
    writeFileSync(script, '#!/bin/sh\necho "ran $1"\n', { mode: 0o644 });
    expect((await supervise([script, 'a'])).code).toBe(126);
    chmodSync(script, 0o755);
    const got = await supervise([script, 'a']);
    expect(got.code).toBe(0);
    expect(got.log).toBe('ran a\n');
  });
});
