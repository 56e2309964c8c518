// The process runner with real children: exit codes, signals, the deadline's escalation to SIGKILL,
// aborts, output caps, stdin, an environment that is only what the caller gives.
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  endingOf,
  type RunResult,
  runProcess,
  SpawnError,
  succeeded,
} from '../../../service/process/run-process.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const sh = (script: string, options: Partial<Parameters<typeof runProcess>[2]> = {}) =>
  runProcess('sh', ['-c', script], { env, ...options });

describe('runProcess', () => {
  it('reports the exit status and both streams; only status 0 is success', async () => {
    const ok = await sh('echo out; echo err >&2');
    expect(ok).toMatchObject({ exitCode: 0, signal: null, timedOut: false, aborted: false });
    expect(ok.stdout.toString()).toBe('out\n');
    expect(ok.stderr.toString()).toBe('err\n');
    expect(succeeded(ok)).toBe(true);
    const failed = await sh('exit 3');
    expect(failed.exitCode).toBe(3);
    expect(succeeded(failed)).toBe(false);
  });

  it('counts a child killed by a signal as a failure, never as status 0', async () => {
    const result = await sh('kill -KILL $$');
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    expect(succeeded(result)).toBe(false);
  });

  it('kills a child that ignores SIGTERM at its deadline, with SIGKILL after the grace', async () => {
    const result = await sh('trap "" TERM; echo ready; while :; do sleep 0.1; done', { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(result.stdout.toString()).toBe('ready\n');
    expect(succeeded(result)).toBe(false);
  });

  it('stops the child when the signal aborts, and says so', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const aborted = await runProcess('sleep', ['30'], { env, signal: controller.signal });
    expect(aborted).toMatchObject({ aborted: true, signal: 'SIGTERM', timedOut: false });
    const already = await runProcess('sleep', ['30'], { env, signal: AbortSignal.abort() });
    expect(already.aborted).toBe(true);
  });

  it('keeps at most the cap of each stream and says it dropped the rest', async () => {
    const result = await sh('head -c 100000 /dev/zero', { maxOutputBytes: 1000 });
    expect(result.stdout.length).toBe(1000);
    expect(result.truncated).toBe(true);
  });

  it('writes the input to stdin, bytes as bytes, and closes it', async () => {
    const result = await runProcess('od', ['-An', '-tx1'], { env, input: Buffer.from([0, 0x1b, 0xff]) });
    expect(result.stdout.toString().trim()).toBe('00 1b ff');
    const none = await runProcess('cat', [], { env });
    expect(none.stdout.length).toBe(0);
  });

  it('gives the child only the environment the caller passed', async () => {
    process.env.DOGSLED_RUNNER_LEAK = 'leaked';
    try {
      const result = await sh('echo "[$DOGSLED_RUNNER_LEAK][$ONLY]"', { env: { ...env, ONLY: 'given' } });
      expect(result.stdout.toString()).toBe('[][given]\n');
    } finally {
      delete process.env.DOGSLED_RUNNER_LEAK;
    }
  });

  it('rejects with a typed error when the program cannot be started', async () => {
    const error = await runProcess('/nonexistent/dogsled-no-such-program', [], { env }).catch((e) => e);
    expect(error).toBeInstanceOf(SpawnError);
    expect(error).toMatchObject({
      code: 'ENOENT',
      message: 'cannot run /nonexistent/dogsled-no-such-program: ENOENT',
    });
  });

  it('signals the whole group of a detached child at its deadline', async () => {
    const result = await sh('sleep 30 & echo $!; wait', { timeoutMs: 300, detached: true });
    expect(result.timedOut).toBe(true);
    // The background sleep got the group's SIGTERM: gone, or a zombie its new parent has not reaped.
    const pid = Number(result.stdout.toString().trim());
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    expect(stat === '' || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')).toBe(true);
  });
});

describe('runProcess: runaway children and leftovers', () => {
  it('stops a child whose output passes the cap, and never calls that a success', async () => {
    const result = await runProcess('yes', [], { env, maxOutputBytes: 1000 });
    expect(result.stdout.length).toBe(1000);
    expect(result).toMatchObject({ truncated: true, timedOut: false, aborted: false });
    expect(succeeded(result)).toBe(false);
    expect(endingOf(result)).toBe('output too large');
  });

  it("keeps the end of the output in 'tail' mode and lets the child run to its own exit", async () => {
    const seen: string[] = [];
    const result = await sh('seq 1 20000; echo last >&2', {
      maxOutputBytes: 12,
      keep: 'tail',
      onData: (chunk, stream) => seen.push(`${stream}:${chunk.length > 0}`),
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.toString()).toBe('19999\n20000\n');
    expect(result.stderr.toString()).toBe('last\n');
    expect(result.truncated).toBe(true);
    expect(seen).toContain('stdout:true');
    expect(seen).toContain('stderr:true');
  });

  it('answers once the child exits even when a background grandchild keeps its pipes open', async () => {
    const result = await sh('sleep 60 & echo $!');
    const pid = Number(result.stdout.toString().trim());
    try {
      expect(result).toMatchObject({ exitCode: 0, timedOut: false });
      expect(pid).toBeGreaterThan(1);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('takes the output waiting in the pipes when the drain delay passed before the loop read them', async () => {
    // A busy or late turn of the event loop, forced: the child's exit is heard (libuv reaps it in the
    // callback that emits 'exit', so its /proc entry is gone once that ran), then the output reaches
    // the pipe while the loop is blocked past the drain's delay. The next turn runs that timer before
    // it polls the pipe; an answer taken there was empty, with status 0 (a git whose listing came back
    // empty: every commit "merged", a dirty checkout clean). The writer is a grandchild holding the
    // pipe, the one way to order its bytes after the exit; it then exits, so the pipe ends too.
    const dir = await tempDir('dogsled-drain-');
    const [fifo, pidFile, written] = ['go', 'pid', 'written'].map((name) => join(dir, name)) as [
      string,
      string,
      string,
    ];
    try {
      await runProcess('mkfifo', [fifo], { env });
      const run = sh(`echo $$ > ${pidFile}; (read go < ${fifo}; printf data; : > ${written}) & exit 0`);
      const pid = await waitFor('the child to write its pid', async () =>
        Number((await readFile(pidFile, 'utf8')).trim()),
      );
      await waitFor('the child to be reaped', () => !existsSync(`/proc/${pid}`));
      const heard = Date.now();
      const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      const go = openSync(fifo, 'w');
      writeSync(go, 'go\n');
      closeSync(go);
      const until = Date.now() + 10_000;
      while (!existsSync(written) && Date.now() < until) block(5);
      block(Math.max(0, heard + 400 - Date.now()));
      const result = await run;
      expect(existsSync(written)).toBe(true);
      expect(result.stdout.toString()).toBe('data');
      expect(succeeded(result)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('with no grace sends SIGKILL at the deadline, never SIGTERM first', async () => {
    const result = await sh('trap "echo got-term" TERM; echo ready; while :; do sleep 0.1; done', {
      timeoutMs: 300,
      killGraceMs: 0,
    });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(result.stdout.toString()).toBe('ready\n');
  });

  it('kills what a stopped detached child left in its group, even members that ignore SIGTERM', async () => {
    const result = await sh('(trap "" TERM; exec sleep 60) & echo $!; wait', {
      timeoutMs: 300,
      detached: true,
    });
    expect(result.timedOut).toBe(true);
    const pid = Number(result.stdout.toString().trim());
    // SIGKILL reached it as soon as the leader was gone: dead, or a zombie awaiting its reaper.
    await waitFor('the child to be gone or a zombie', async () => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      return stat === '' || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
    });
  });

  it('starts nothing for a signal that has already aborted', async () => {
    const result = await runProcess('/nonexistent/dogsled-no-such-program', [], {
      env,
      signal: AbortSignal.abort(),
    });
    expect(result).toMatchObject({ aborted: true, exitCode: null, signal: null });
    expect(succeeded(result)).toBe(false);
  });

  it('gives a child without input /dev/null, not a terminal or an inherited descriptor', async () => {
    const result = await runProcess('readlink', ['/proc/self/fd/0'], { env });
    expect(result.stdout.toString().trim()).toBe('/dev/null');
  });
});

// A child without input starts through the process and pipe handles (spawn-by-handle.ts), one with
// input through node:child_process: the two answer alike.
describe('runProcess: the two ways a child starts', () => {
  const both = (script: string, options: Partial<Parameters<typeof runProcess>[2]> = {}) =>
    Promise.all([sh(script, options), sh(script, { ...options, input: '' })]);

  it('end, output in order and a kept cap are the same through the handles and through child_process', async () => {
    const script = 'printf "a\\0b"; echo err >&2; head -c 200000 /dev/zero; exit 7';
    const [byHandle, byModule] = await both(script, { maxOutputBytes: 300_000 });
    expect(byHandle.exitCode).toBe(7);
    for (const result of [byHandle, byModule]) {
      expect(result.stdout.length).toBe(3 + 200_000);
      expect(result.stdout.subarray(0, 3)).toEqual(Buffer.from('a\0b'));
    }
    const pick = ({ exitCode, signal, stderr, timedOut, aborted, truncated }: RunResult) => ({
      exitCode,
      signal,
      stderr: stderr.toString(),
      timedOut,
      aborted,
      truncated,
    });
    expect(pick(byHandle)).toEqual(pick(byModule));
    const seen: string[] = [];
    await sh('echo one; echo two >&2', { onData: (chunk, stream) => seen.push(`${stream}:${chunk}`) });
    expect(seen.sort()).toEqual(['stderr:two\n', 'stdout:one\n']);
  });

  it('a missing directory is the same typed error either way', async () => {
    for (const input of [undefined, '']) {
      const error = await runProcess('true', [], {
        env,
        cwd: '/nonexistent/dogsled-no-such-dir',
        ...(input === undefined ? {} : { input }),
      }).catch((e) => e);
      expect(error).toBeInstanceOf(SpawnError);
      expect(error).toMatchObject({ code: 'ENOENT' });
    }
  });

  it('an argument the kernel refuses (E2BIG) rejects as child_process throws it, not as a missing program', async () => {
    // One argument past the kernel's 128 KiB a string: the exec fails in the child, not here.
    const huge = 'x'.repeat(200 * 1024);
    for (const input of [undefined, '']) {
      const error = await runProcess('true', [huge], {
        env,
        ...(input === undefined ? {} : { input }),
      }).catch((e) => e);
      expect(error).not.toBeInstanceOf(SpawnError);
      expect(error).toMatchObject({ code: 'E2BIG', syscall: 'spawn' });
    }
  });

  it('a NUL in an argument is refused before anything starts, either way', async () => {
    for (const input of [undefined, '']) {
      const error = await runProcess('echo', ['a\0b'], {
        env,
        ...(input === undefined ? {} : { input }),
      }).catch((e) => e);
      expect(error).toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
    }
  });

  it('stops reading a pipe a grandchild holds once the child has gone, and leaves no handle open', async () => {
    const result = await sh('(sleep 5; echo late) & echo early', { timeoutMs: 10_000 });
    expect(result.stdout.toString()).toBe('early\n');
    expect(result.durationMs).toBeLessThan(3_000);
  });
});

describe('a deadline longer than a timer can hold', () => {
  it('is held at the longest timer, never fired at once', async () => {
    const result = await sh('sleep 0.3; echo done', { timeoutMs: 30 * 24 * 3600_000 });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.stdout.toString()).toBe('done\n');
  });
});
