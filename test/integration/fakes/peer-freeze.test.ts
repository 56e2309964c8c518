// The peers' sshd freeze and thaw (test/e2e/peers/procs.ts): a process stopped with its tree is
// thawed even after its parent has gone, as a connection's command is whose sshd exits while the
// freeze walks the tree. Left stopped, it outlived its test and failed a later one's "no process left".
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { processTree, signalAgain, signalTree } from '../../e2e/peers/procs.js';
import { waitFor } from '../../helpers/wait.js';

/** The state letter of /proc/PID/stat (R, S, T…), or undefined once it is gone. */
async function state(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat === '' ? undefined : stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
});

describe('signalTree and signalAgain', () => {
  it('thaw a process that left the frozen tree when its parent died, and only that process', async () => {
    // A session leader under a shell, as a connection's command is under its sshd: its parent's
    // death sends it no SIGHUP or SIGCONT of the kernel's.
    const parent = spawn('sh', ['-c', 'setsid sleep 60 & echo $!; wait'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const childPid = Number(
      await new Promise<string>((resolve) => parent.stdout?.once('data', (d: Buffer) => resolve(String(d)))),
    );
    started.push(childPid, parent.pid as number);
    await waitFor('the child below its shell', async () =>
      (await processTree(parent.pid as number)).includes(childPid),
    );

    const frozen = await signalTree(parent.pid as number, 'SIGSTOP');
    expect(frozen.map((p) => p.pid).sort()).toEqual([parent.pid, childPid].sort());
    await waitFor('the child stopped', async () => (await state(childPid)) === 'T');
    parent.kill('SIGKILL');
    await waitFor('the shell gone', () => parent.exitCode !== null || parent.signalCode !== null);

    // The tree as it is now no longer holds the child: thawing by it leaves the child stopped.
    await signalTree(parent.pid as number, 'SIGCONT');
    expect(await state(childPid)).toBe('T');
    await signalAgain(frozen, 'SIGCONT');
    await waitFor('the child running again', async () => (await state(childPid)) === 'S');
  });

  it('leave alone a process that took a frozen one’s pid: its start time differs', async () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    started.push(sleeper.pid as number);
    const [self] = await signalTree(sleeper.pid as number, 'SIGSTOP');
    await waitFor('the sleeper stopped', async () => (await state(sleeper.pid as number)) === 'T');
    await signalAgain([{ pid: self?.pid as number, started: `${self?.started}0` }], 'SIGCONT');
    expect(await state(sleeper.pid as number)).toBe('T');
    await signalAgain([self as NonNullable<typeof self>], 'SIGCONT');
    await waitFor('the sleeper running again', async () => (await state(sleeper.pid as number)) === 'S');
  });
});
