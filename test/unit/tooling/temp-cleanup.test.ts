// The suite cleans up after itself: each file's temp dirs go once it is done, whatever a test left
// in them, and the run fails on any of its dirs still there at the end (test/helpers/tree.ts).

import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/cli.js';
import { stoppedItself } from '../../helpers/frozen-lock.js';
import { killStillFrozen } from '../../helpers/frozen-procs.js';
import { leftovers } from '../../helpers/global-setup.js';
import { mountsUnder, removeDir } from '../../helpers/remove-dir.js';
import { RUN_TOKEN_ENV, removedDirsLog, removeTempDirs, tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function listen(path: string): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

describe('removeDir', () => {
  it('removes dirs made read-only or unreadable and a socket still listened on', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'locked', 'inner'), { recursive: true });
    await writeFile(join(dir, 'locked', 'inner', 'file'), 'x');
    await chmod(join(dir, 'locked', 'inner'), 0);
    await chmod(join(dir, 'locked'), 0o500);
    await listen(join(dir, 'live.sock'));
    expect(await removeDir(dir)).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });

  it('answers true for a dir already gone', async () => {
    expect(await removeDir(join(tmpdir(), 'dogsled-never-made-'))).toBe(true);
  });

  it.runIf(process.getuid?.() === 0)(
    'unmounts a file system a test left mounted inside, then removes',
    async () => {
      const dir = await tempDir();
      const point = join(dir, 'a mount');
      await mkdir(point);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', point]);
      await writeFile(join(point, 'file'), 'x');
      expect(await mountsUnder(dir)).toEqual([point]);
      expect(await removeDir(dir)).toBe(true);
      expect(await mountsUnder(dir)).toEqual([]);
    },
  );
});

describe('tempDir', () => {
  it("names its dirs with the run's token, and removeTempDirs removes them all", async () => {
    const token = process.env[RUN_TOKEN_ENV];
    expect(token).toMatch(/^[0-9a-f]{6}$/);
    const made = [await tempDir('dogsled-a-'), await fixtureFree()];
    for (const dir of made) expect(dir).toContain(`-${token}-`);
    // Others this file made go too: removeTempDirs takes every one made in this process.
    expect(await removeTempDirs()).toEqual([]);
    for (const dir of made) expect(existsSync(dir)).toBe(false);
  });
});

async function fixtureFree(): Promise<string> {
  const dir = await tempDir('dogsled-b-');
  await mkdir(join(dir, 'ro'));
  await chmod(join(dir, 'ro'), 0o500);
  return dir;
}

describe("the global teardown's check", () => {
  it("removes and lists this run's dirs still there, with what they hold, without failing the run; others' stay", async () => {
    const token = 'ffffff';
    const left = await mkdtemp(join(tmpdir(), `dogsled-left-${token}-`));
    await mkdir(join(left, 'state', 'jobs'), { recursive: true });
    await writeFile(join(left, 'state', 'jobs', 'j_late.json'), '{}');
    // As removeTempDirs noted it when the file that made it ended.
    await writeFile(removedDirsLog(token), `${left}\ttest/integration/x/late.test.ts\n`);
    const other = await tempDir('dogsled-other-');
    const before = process.exitCode;
    const stderr = process.stderr.write;
    let said = '';
    process.stderr.write = ((text: string) => {
      said += text;
      return true;
    }) as typeof process.stderr.write;
    try {
      process.exitCode = undefined;
      await leftovers(token);
      expect(process.exitCode).toBeUndefined();
    } finally {
      process.stderr.write = stderr;
      process.exitCode = before;
    }
    expect(said).toContain(left);
    expect(said).toContain(`  ${join('state', 'jobs', 'j_late.json')}`);
    expect(said).toContain(`${left} (made for test/integration/x/late.test.ts)`);
    expect(existsSync(removedDirsLog(token))).toBe(false);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(other)).toBe(true);
  });
});

/** tempDir itself, and this file, which makes a dir of another run's name on purpose. */
const OWN = ['test/helpers/tree.ts', 'test/unit/tooling/temp-cleanup.test.ts'];

describe('the test files', () => {
  it('make their temp dirs with tempDir, so each is removed after its file', async () => {
    const direct: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'bench' && entry.name !== 'node_modules') await walk(path);
        } else if (/\.(ts|mjs|js)$/.test(entry.name) && !OWN.includes(relative(ROOT, path))) {
          // A dir made under tmpdir() (or /tmp) another way than tempDir is not removed for the file.
          const text = await readFile(path, 'utf8');
          if (
            /mkdtemp(Sync)?\(\s*join\(\s*(tmpdir\(\)|'\/tmp')/.test(text) ||
            /tmpdir\(\)[^\n]*dogsled-/.test(text)
          )
            direct.push(relative(ROOT, path));
        }
      }
    };
    await walk(join(ROOT, 'test'));
    expect(direct).toEqual([]);
  });
});

describe('a command a test froze inside a lock', () => {
  /** A real process that stops itself, as a command given stopInLock's env does inside its lock. */
  function selfStopping() {
    const child = spawn(process.execPath, [
      '-e',
      "process.kill(process.pid, 'SIGSTOP'); setTimeout(() => {}, 60_000)",
    ]);
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_, signal) => resolve(signal)),
    );
    return { child, ended };
  }

  it('is killed after its file when still stopped; one resumed, or ended, is left alone', async () => {
    const stuck = selfStopping();
    const resumed = selfStopping();
    const ended = selfStopping();
    await stoppedItself(stuck.child.pid);
    await stoppedItself(resumed.child.pid);
    await stoppedItself(ended.child.pid);
    ended.child.kill('SIGKILL');
    expect(await ended.ended).toBe('SIGKILL');
    resumed.child.kill('SIGCONT');
    await waitFor(
      'the resumed process running',
      async () => (await readFile(`/proc/${resumed.child.pid}/stat`, 'utf8')).includes(') S ') || undefined,
    );
    expect(await killStillFrozen()).toEqual([stuck.child.pid]);
    expect(await stuck.ended).toBe('SIGKILL');
    resumed.child.kill('SIGTERM');
    expect(await resumed.ended).toBe('SIGTERM');
    // Each is looked at once: nothing is left to kill after.
    expect(await killStillFrozen()).toEqual([]);
  });
});
