import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RepoCommandError, runRepoCommands } from '../../../service/cleanup/commands.js';
import { isDogsledError } from '../../../service/core/common/errors.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const BUDGET_MS = 20_000;

async function worktree() {
  const path = await tempDir();
  return { path, values: { main: '/home/ada/repo', path, branch: 'feat/a' } };
}

async function failure(promise: Promise<void>): Promise<RepoCommandError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RepoCommandError);
  return error as RepoCommandError;
}

describe('runRepoCommands', () => {
  test('runs each command in the worktree, in order, with the values as single words', async () => {
    const { path } = await worktree();
    const values = { main: "/tmp/it's a $HOME", path, branch: '' };
    await runRepoCommands(['pwd > order', 'printf "%s|" {main} {branch} >> order', 'echo done >> order'], {
      cwd: path,
      values,
      deadlineMs: BUDGET_MS,
      what: 'setup',
      env: process.env,
    });
    expect(await readFile(join(path, 'order'), 'utf8')).toBe(`${path}\n/tmp/it's a $HOME||done\n`);
  });

  test('stdin is closed, so a command waiting for input ends at once', async () => {
    const { path, values } = await worktree();
    await runRepoCommands(['cat > got'], {
      cwd: path,
      values,
      deadlineMs: BUDGET_MS,
      what: 'setup',
      env: process.env,
    });
    expect(await readFile(join(path, 'got'), 'utf8')).toBe('');
  });

  test('a failing command stops the rest and reports its exit code and last 20 output lines', async () => {
    const { path, values } = await worktree();
    const error = await failure(
      runRepoCommands(
        [
          'true',
          'for i in $(seq 1 30); do echo "line $i"; done; printf "\\033[31mred\\033[0m\\r\\n" >&2; exit 3',
          'touch ran',
        ],
        { cwd: path, values, deadlineMs: BUDGET_MS, what: 'teardown', env: process.env },
      ),
    );
    expect(error.exitCode).toBe(2);
    expect(error.output).toHaveLength(20);
    expect(error.output.at(-1)).toBe('red');
    expect(error.output[0]).toBe('line 12');
    const [first, ...rest] = error.message.split('\n');
    expect(first).toMatch(/^teardown command failed \(exit 3\): for i in /);
    expect(rest).toEqual(error.output.map((line) => `  ${line}`));
    await expect(readFile(join(path, 'ran'))).rejects.toThrow(/ENOENT/);
  });

  test('a command killed by a signal is a failure that names the signal', async () => {
    const { path, values } = await worktree();
    const error = await failure(
      runRepoCommands(['kill -KILL $$'], {
        cwd: path,
        values,
        deadlineMs: BUDGET_MS,
        what: 'setup',
        env: process.env,
      }),
    );
    expect(error.message).toBe('setup command failed (signal SIGKILL): kill -KILL $$');
  });

  test('the deadline kills the whole process group and says so', async () => {
    const { path, values } = await worktree();
    const error = await failure(
      runRepoCommands(['sleep 30 & echo $! > bg; echo started; wait'], {
        cwd: path,
        values,
        deadlineMs: 500,
        what: 'teardown',
        env: process.env,
      }),
    );
    expect(error.message).toMatch(
      /^teardown command timed out \(500ms for all teardown commands\): sleep 30/,
    );
    expect(error.output).toEqual(['started']);
    const bg = Number(await readFile(join(path, 'bg'), 'utf8'));
    await waitFor(`the background sleep ${bg} to die`, async () => !(await running(bg)));
  });

  test('an abort stops the running command and runs no more', async () => {
    const { path, values } = await worktree();
    const controller = new AbortController();
    const running = runRepoCommands(['touch started; sleep 30', 'touch next'], {
      cwd: path,
      values,
      deadlineMs: BUDGET_MS,
      what: 'setup',
      env: process.env,
      signal: controller.signal,
    });
    await waitFor('the command to start', () => readFile(join(path, 'started')).then(() => true));
    controller.abort();
    const error = await failure(running);
    expect(error.message).toBe('setup command interrupted: touch started; sleep 30');
    await expect(readFile(join(path, 'next'))).rejects.toThrow(/ENOENT/);
  });

  test('a background child holding the output open does not hold up a successful command', async () => {
    const { path, values } = await worktree();
    await runRepoCommands(['(sleep 3; echo late) & echo $! > bg'], {
      cwd: path,
      values,
      deadlineMs: BUDGET_MS,
      what: 'setup',
      env: process.env,
    });
    process.kill(Number(await readFile(join(path, 'bg'), 'utf8')));
  });

  test('runs with the environment it is given, and keeps only the tail of a flood of output', async () => {
    const { path, values } = await worktree();
    process.env.DOGSLED_SETUP_LEAK = 'leaked';
    try {
      const error = await failure(
        runRepoCommands(['seq 1 200000; echo "[$DOGSLED_SETUP_LEAK][$GIVEN]"; exit 4'], {
          cwd: path,
          values,
          deadlineMs: BUDGET_MS,
          what: 'setup',
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIVEN: 'given' },
        }),
      );
      expect(error.output.at(-1)).toBe('[][given]');
      expect(error.output.at(-2)).toBe('200000');
    } finally {
      delete process.env.DOGSLED_SETUP_LEAK;
    }
  });

  test('a bad placeholder fails before any command runs', async () => {
    const { path, values } = await worktree();
    const error = await runRepoCommands(['touch first', 'echo {base}'], {
      cwd: path,
      values,
      deadlineMs: BUDGET_MS,
      what: 'setup',
      env: process.env,
    }).catch((thrown: unknown) => thrown);
    expect(isDogsledError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^setup: unknown placeholder \{base\} in command: echo \{base\}/,
    );
    await expect(readFile(join(path, 'first'))).rejects.toThrow(/ENOENT/);
  });

  test('a missing worktree directory is a one-line error', async () => {
    const { path, values } = await worktree();
    await expect(
      runRepoCommands(['true'], {
        cwd: join(path, 'nope'),
        values,
        deadlineMs: BUDGET_MS,
        what: 'teardown',
        env: process.env,
      }),
    ).rejects.toThrow(`cannot run teardown commands: ${join(path, 'nope')} is not a directory`);
  });
});

/** Running, as opposed to gone or a zombie that nobody has reaped yet. */
async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== '' && state !== 'Z';
}
