// Starting a long-lived process and letting it go, with real children: its own session, its output
// on the descriptor given, only the environment given, and a typed error for what cannot start.
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchDetached } from '../../../service/process/launch-detached.js';
import { SpawnError } from '../../../service/process/run-process.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('launchDetached', () => {
  it('starts the leader of a new session with its output on the descriptor and only the given environment', async () => {
    const dir = await tempDir();
    const log = join(dir, 'out.log');
    const fd = openSync(log, 'a', 0o600);
    process.env.DOGSLED_LAUNCH_LEAK = 'leaked';
    let pid: number;
    try {
      pid = await launchDetached(
        ['sh', '-c', 'echo "[$DOGSLED_LAUNCH_LEAK][$GIVEN] $(pwd)"; exec sleep 30'],
        {
          cwd: dir,
          env: { ...env, GIVEN: 'given' },
          outputFd: fd,
        },
      );
    } finally {
      closeSync(fd);
      delete process.env.DOGSLED_LAUNCH_LEAK;
    }
    try {
      await waitFor('the launched process to write its line', async () =>
        (await readFile(log, 'utf8')).endsWith('\n'),
      );
      expect(await readFile(log, 'utf8')).toBe(`[][given] ${dir}\n`);
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      // After the comm: state ppid pgrp session.
      const [, , pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      expect(Number(pgrp)).toBe(pid);
      expect(Number(session)).toBe(pid);
    } finally {
      process.kill(-pid, 'SIGKILL');
    }
  });

  it('rejects with a typed error when the program cannot be started', async () => {
    const error = await launchDetached(['dogsled-no-such-program'], { cwd: '/', env }).catch((e) => e);
    expect(error).toBeInstanceOf(SpawnError);
    expect(error.code).toBe('ENOENT');
  });
});
