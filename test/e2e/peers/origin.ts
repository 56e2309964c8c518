// A git origin every peer may read (a bare repository under the fleet's root, made world-readable)
// with one commit on `main`, and clones of it under the caller's home: what `--branch` across hosts
// is checked against. `git` runs with no global config, any directory taken as safe.

import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Fleet } from './fleet.js';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'safe.directory=*', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}

/** The origin's path, after cloning it to each of `checkouts` (absolute paths under the caller's home). */
export async function makeOrigin(fleet: Fleet, checkouts: readonly string[]): Promise<string> {
  const origin = join(fleet.peers.root, 'origin.git');
  const seed = join(fleet.peers.root, 'seed');
  await mkdir(seed);
  git(seed, 'init', '-q', '-b', 'main');
  git(
    seed,
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@example.com',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'first',
  );
  git(fleet.peers.root, 'clone', '-q', '--bare', seed, origin);
  execFileSync('chmod', ['-R', 'a+rX', origin]);
  for (const checkout of checkouts) {
    await mkdir(join(checkout, '..'), { recursive: true });
    git(fleet.box.home, 'clone', '-q', origin, checkout);
  }
  return origin;
}
