// A linked worktree proven clean from its files (service/git/stat-clean.ts) against what Git says of
// it: a proof only where `git status` (every listing the loss rule reads: untracked, ignored) prints
// nothing and the proof's tree is HEAD's; every other state, hostile ones included, is a doubt.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmod,
  mkdir,
  readFile,
  rm,
  stat,
  symlink,
  truncate,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { INDEX_MAX_BYTES } from '../../../service/git/index-file.js';
import { statClean } from '../../../service/git/stat-clean.js';
import { gitTestEnv } from '../../helpers/git-scenarios.js';
import { tempDir } from '../../helpers/tree.js';

const run = promisify(execFile);
const dirs: string[] = [];
const sockets: Server[] = [];

afterAll(async () => {
  await Promise.all(sockets.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd, env: gitTestEnv() })).stdout;
}

interface Worktree {
  main: string;
  path: string;
  gitDir: string;
}

/** A repository with files in nested directories and a link, and a linked worktree on `topic`. */
async function worktree(format: 'sha1' | 'sha256' = 'sha1'): Promise<Worktree> {
  const main = await tempDir('dogsled-stat-clean-');
  dirs.push(main);
  await git(main, 'init', '-q', '-b', 'main', `--object-format=${format}`);
  await mkdir(join(main, 'src', 'deep'), { recursive: true });
  await writeFile(join(main, 'a.txt'), 'alpha\n');
  await writeFile(join(main, 'src', 'b.txt'), 'beta\n');
  await writeFile(join(main, 'src', 'deep', 'c.sh'), '#!/bin/sh\n');
  await chmod(join(main, 'src', 'deep', 'c.sh'), 0o755);
  await symlink('a.txt', join(main, 'link'));
  await writeFile(join(main, '.gitignore'), '*.log\n');
  await git(main, 'add', '.');
  await git(main, 'commit', '-qm', 'files');
  const path = join(main, '.worktrees', 'topic');
  await git(main, 'worktree', 'add', '-q', '-b', 'topic', path);
  return { main, path, gitDir: join(main, '.git', 'worktrees', 'topic') };
}

/** What Git says: the status lines the loss rule would read, and HEAD's tree. */
async function gitSays(wt: Worktree): Promise<{ status: string; tree: string }> {
  const status = await git(
    wt.path,
    'status',
    '--porcelain=v2',
    '--ignored=traditional',
    '--untracked-files=all',
  );
  return { status, tree: (await git(wt.path, 'rev-parse', 'HEAD^{tree}')).trim() };
}

/** The index written long enough ago that no entry is racily clean (the common, settled case). */
async function settle(wt: Worktree): Promise<void> {
  const past = new Date(Date.now() - 3600_000);
  for (const file of ['a.txt', 'src/b.txt', 'src/deep/c.sh', '.gitignore']) {
    await utimes(join(wt.path, file), past, past);
  }
  await git(wt.path, 'update-index', '--really-refresh');
}

describe('a worktree proven clean from its files', () => {
  it('proves a clean worktree clean, with the tree of its HEAD', async () => {
    const wt = await worktree();
    await settle(wt);
    const said = await gitSays(wt);
    expect(said.status).toBe('');
    expect(statClean(wt.path, wt.gitDir)).toEqual({ ref: 'refs/heads/topic', tree: said.tree });
  });

  it('proves a fresh worktree whose entries are racily clean by their bytes', async () => {
    const wt = await worktree();
    // Every entry modified no earlier than the index: only its bytes can prove it.
    const future = new Date(Date.now() + 3600_000);
    await utimes(join(wt.gitDir, 'index'), new Date(0), new Date(0));
    expect(statClean(wt.path, wt.gitDir)?.tree).toBe((await gitSays(wt)).tree);
    await utimes(join(wt.gitDir, 'index'), future, future);
    expect(statClean(wt.path, wt.gitDir)).not.toBeNull();
  });

  it('proves a sha256 repository clean', async () => {
    const wt = await worktree('sha256');
    await settle(wt);
    expect(statClean(wt.path, wt.gitDir)?.tree).toHaveLength(64);
    expect(statClean(wt.path, wt.gitDir)?.tree).toBe((await gitSays(wt)).tree);
  });

  const doubts: Array<[string, (wt: Worktree) => Promise<void>]> = [
    [
      'an edit of the same size with its mtime put back',
      async (wt) => {
        const file = join(wt.path, 'a.txt');
        await writeFile(file, 'ALPHA\n');
        const past = new Date(Date.now() - 3600_000);
        await utimes(file, past, past);
      },
    ],
    ['an edit that changes the size', (wt) => writeFile(join(wt.path, 'src', 'b.txt'), 'beta and more\n')],
    ['an executable bit turned on', (wt) => chmod(join(wt.path, 'a.txt'), 0o755)],
    ['an executable bit turned off', (wt) => chmod(join(wt.path, 'src', 'deep', 'c.sh'), 0o644)],
    ['a deleted file', (wt) => unlink(join(wt.path, 'src', 'b.txt'))],
    ['an untracked file', (wt) => writeFile(join(wt.path, 'src', 'new.txt'), 'new\n')],
    ['an ignored file', (wt) => writeFile(join(wt.path, 'build.log'), 'log\n')],
    ['an empty directory', (wt) => mkdir(join(wt.path, 'src', 'empty'))],
    [
      'a link pointed elsewhere',
      async (wt) => {
        await unlink(join(wt.path, 'link'));
        await symlink('src/b.txt', join(wt.path, 'link'));
      },
    ],
    [
      'a link replaced by a file',
      async (wt) => {
        await unlink(join(wt.path, 'link'));
        await writeFile(join(wt.path, 'link'), 'a.txt');
      },
    ],
    [
      'a directory replaced by a link to it',
      async (wt) => {
        await run('mv', [join(wt.path, 'src'), join(wt.path, 'elsewhere')]);
        await symlink('elsewhere', join(wt.path, 'src'));
      },
    ],
    [
      'a staged change',
      async (wt) => {
        await writeFile(join(wt.path, 'a.txt'), 'staged\n');
        await git(wt.path, 'add', 'a.txt');
      },
    ],
    [
      'an intent-to-add entry',
      async (wt) => {
        await writeFile(join(wt.path, 'later.txt'), 'later\n');
        await git(wt.path, 'add', '-N', 'later.txt');
      },
    ],
    [
      'an assume-unchanged entry',
      (wt) => git(wt.path, 'update-index', '--assume-unchanged', 'a.txt').then(() => {}),
    ],
    [
      'a skip-worktree entry',
      (wt) => git(wt.path, 'update-index', '--skip-worktree', 'a.txt').then(() => {}),
    ],
    ['a detached HEAD', (wt) => git(wt.path, 'checkout', '-q', '--detach').then(() => {})],
    ['a nested repository', (wt) => git(wt.path, 'init', '-q', 'src/inner').then(() => {})],
    [
      'a gitlink entry',
      async (wt) => {
        const head = (await git(wt.path, 'rev-parse', 'HEAD')).trim();
        await git(wt.path, 'update-index', '--add', '--cacheinfo', `160000,${head},sub`);
      },
    ],
    ['a split index', (wt) => git(wt.path, 'update-index', '--split-index').then(() => {})],
    ['a FIFO in the worktree', (wt) => run('mkfifo', [join(wt.path, 'src', 'pipe')]).then(() => {})],
    [
      'a FIFO in place of the index',
      async (wt) => {
        await rm(join(wt.gitDir, 'index'));
        await run('mkfifo', [join(wt.gitDir, 'index')]);
      },
    ],
    [
      'a FIFO in place of HEAD',
      async (wt) => {
        await rm(join(wt.gitDir, 'HEAD'));
        await run('mkfifo', [join(wt.gitDir, 'HEAD')]);
      },
    ],
    [
      'a directory in place of the index',
      async (wt) => {
        await rm(join(wt.gitDir, 'index'));
        await mkdir(join(wt.gitDir, 'index'));
      },
    ],
    ['no index', (wt) => rm(join(wt.gitDir, 'index'))],
    [
      'a corrupt index',
      async (wt) => {
        const file = join(wt.gitDir, 'index');
        const data = await readFile(file);
        data[40] = (data[40] ?? 0) ^ 1;
        await writeFile(file, data);
      },
    ],
    [
      'a torn index',
      async (wt) => {
        const file = join(wt.gitDir, 'index');
        await writeFile(file, (await readFile(file)).subarray(0, 100));
      },
    ],
  ];

  it.each(doubts)('answers a doubt for %s (Git is asked)', async (_name, change) => {
    const wt = await worktree();
    await settle(wt);
    expect(statClean(wt.path, wt.gitDir)).not.toBeNull();
    await change(wt);
    expect(statClean(wt.path, wt.gitDir)).toBeNull();
  });

  /** Every entry racily clean: the index's own time put before them all. */
  const racy = (wt: Worktree) => utimes(join(wt.gitDir, 'index'), new Date(0), new Date(0));

  /**
   * The index entry of `path` made to name the blob `oid`, its stat data untouched and the checksum
   * made whole again: a file whose stat data is exactly what Git recorded but whose bytes are not.
   */
  async function renameBlob(wt: Worktree, path: string, oid: string): Promise<void> {
    const file = join(wt.gitDir, 'index');
    const data = await readFile(file);
    const name = data.indexOf(Buffer.from(`${path}\0`, 'utf8'), 12);
    expect(name).toBeGreaterThan(62);
    // Version 2, SHA-1: 40 bytes of stat data, the object id, two bytes of flags, then the path.
    Buffer.from(oid, 'hex').copy(data, name - 22);
    createHash('sha1')
      .update(data.subarray(0, data.length - 20))
      .digest()
      .copy(data, data.length - 20);
    const info = await stat(file);
    await writeFile(file, data);
    await utimes(file, info.atime, info.mtime);
  }

  it('proves racily clean entries of a sha256 repository by their bytes', async () => {
    const wt = await worktree('sha256');
    await racy(wt);
    expect(statClean(wt.path, wt.gitDir)?.tree).toBe((await gitSays(wt)).tree);
  });

  it('proves a racily clean empty file and link by their bytes', async () => {
    const wt = await worktree();
    await writeFile(join(wt.path, 'empty'), '');
    await git(wt.path, 'add', 'empty');
    await git(wt.path, 'commit', '-qm', 'empty');
    await racy(wt);
    expect((await gitSays(wt)).status).toBe('');
    expect(statClean(wt.path, wt.gitDir)).not.toBeNull();
  });

  const racyDoubts: Array<[string, (wt: Worktree) => Promise<void>]> = [
    [
      'a racily clean file whose bytes are another blob, its stat data exactly what Git recorded',
      async (wt) => {
        // alpha\n and ALPHA\n have the same size: a.txt's entry names the blob of the other.
        const same = (
          await run('sh', ['-c', 'printf "ALPHA\\n" | git hash-object -w --stdin'], {
            cwd: wt.path,
            env: gitTestEnv(),
          })
        ).stdout.trim();
        await renameBlob(wt, 'a.txt', same);
        await racy(wt);
      },
    ],
    [
      'a racily clean link whose target is another blob, its stat data exactly what Git recorded',
      async (wt) => {
        const same = (
          await run('sh', ['-c', 'printf "b.txt" | git hash-object -w --stdin'], {
            cwd: wt.path,
            env: gitTestEnv(),
          })
        ).stdout.trim();
        await renameBlob(wt, 'link', same);
        await racy(wt);
      },
    ],
    [
      'a racily clean file edited to the same size with its mtime put back',
      async (wt) => {
        const file = join(wt.path, 'a.txt');
        const before = await stat(file);
        await writeFile(file, 'ALPHA\n');
        await utimes(file, before.atime, before.mtime);
        await racy(wt);
      },
    ],
    [
      'a racily clean file replaced by a FIFO',
      async (wt) => {
        await rm(join(wt.path, 'a.txt'));
        await run('mkfifo', [join(wt.path, 'a.txt')]);
        await racy(wt);
      },
    ],
    // A racily clean file is opened without a stat of its path first (its fstat is the stat
    // compared): whatever stands in its place is refused by the open or by that fstat.
    [
      'a racily clean file replaced by a link to a file with its bytes',
      async (wt) => {
        await writeFile(join(wt.path, 'copy.txt'), 'alpha\n');
        await rm(join(wt.path, 'a.txt'));
        await symlink('copy.txt', join(wt.path, 'a.txt'));
        await racy(wt);
      },
    ],
    [
      'a racily clean file replaced by a link to a FIFO',
      async (wt) => {
        await run('mkfifo', [join(wt.gitDir, 'elsewhere')]);
        await rm(join(wt.path, 'a.txt'));
        await symlink(join(wt.gitDir, 'elsewhere'), join(wt.path, 'a.txt'));
        await racy(wt);
      },
    ],
    [
      'a racily clean file replaced by a directory',
      async (wt) => {
        await rm(join(wt.path, 'a.txt'));
        await mkdir(join(wt.path, 'a.txt'));
        await racy(wt);
      },
    ],
    [
      'a racily clean file replaced by a socket',
      async (wt) => {
        await rm(join(wt.path, 'a.txt'));
        const server = createServer();
        await new Promise<void>((resolve) => server.listen(join(wt.path, 'a.txt'), resolve));
        sockets.push(server);
        await racy(wt);
      },
    ],
    [
      'a racily clean file gone',
      async (wt) => {
        await rm(join(wt.path, 'src', 'b.txt'));
        await racy(wt);
      },
    ],
    [
      'a racily clean executable file whose bit was turned off',
      async (wt) => {
        await chmod(join(wt.path, 'src', 'deep', 'c.sh'), 0o644);
        await racy(wt);
      },
    ],
    [
      'a racily clean file past the size it hashes',
      async (wt) => {
        await writeFile(join(wt.path, 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 7));
        await git(wt.path, 'add', 'big.bin');
        await git(wt.path, 'commit', '-qm', 'big');
        await racy(wt);
      },
    ],
    [
      'more racily clean files than it hashes',
      async (wt) => {
        const many = join(wt.path, 'many');
        await mkdir(many);
        await Promise.all(Array.from({ length: 201 }, (_, i) => writeFile(join(many, `f${i}`), `${i}\n`)));
        await git(wt.path, 'add', 'many');
        await git(wt.path, 'commit', '-qm', 'many');
        await racy(wt);
      },
    ],
  ];

  it.each(racyDoubts)('answers a doubt for %s (Git is asked)', async (_name, change) => {
    const wt = await worktree();
    await racy(wt);
    expect(statClean(wt.path, wt.gitDir)).not.toBeNull();
    await change(wt);
    expect(statClean(wt.path, wt.gitDir)).toBeNull();
  });

  it('gives the index tree, not HEAD: a cache-tree primed with another tree is caught by the caller', async () => {
    const wt = await worktree();
    await writeFile(join(wt.path, 'a.txt'), 'changed and committed\n');
    await git(wt.path, 'commit', '-qam', 'change');
    const before = (await git(wt.path, 'rev-parse', 'HEAD~1^{tree}')).trim();
    // The index now holds the old tree (cache-tree primed by read-tree), the files the new one.
    await git(wt.path, 'read-tree', 'HEAD~1');
    await git(wt.path, 'checkout-index', '-f', '-a');
    await settle(wt);
    const proof = statClean(wt.path, wt.gitDir);
    const said = await gitSays(wt);
    expect(said.status).not.toBe('');
    // The proof names the index's tree, which is not HEAD's: survey.ts asks Git then.
    expect(proof === null || (proof.tree === before && proof.tree !== said.tree)).toBe(true);
  });

  it('answers a doubt past its bound of entries', async () => {
    const wt = await worktree();
    const many = join(wt.path, 'many');
    await mkdir(many);
    await Promise.all(Array.from({ length: 5001 }, (_, i) => writeFile(join(many, `f${i}`), '')));
    await git(wt.path, 'add', 'many');
    await git(wt.path, 'commit', '-qm', 'many');
    await settle(wt);
    expect((await gitSays(wt)).status).toBe('');
    expect(statClean(wt.path, wt.gitDir)).toBeNull();
  });

  it('answers a doubt for an index past its cap, without reading it', async () => {
    const wt = await worktree();
    await settle(wt);
    expect(statClean(wt.path, wt.gitDir)).not.toBeNull();
    const index = join(wt.gitDir, 'index');
    await truncate(index, INDEX_MAX_BYTES + 1);
    expect(statClean(wt.path, wt.gitDir)).toBeNull();
  });
});
