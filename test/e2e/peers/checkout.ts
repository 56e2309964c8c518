// The caller's repository for fleet tests: a bare origin every peer user can read (under the peers'
// root) and the caller's clone of it under the caller's home, named `name` (a name a shell would
// split shows that a path travels as data).

import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Fleet } from './fleet.js';

/** git as root, reading repositories the peer users own too. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'safe.directory=*', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}

export async function callerCheckout(
  fleet: Fleet,
  name: string,
): Promise<{ origin: string; checkout: string }> {
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
  const checkout = join(fleet.box.home, 'src', name);
  await mkdir(join(fleet.box.home, 'src'), { recursive: true });
  git(fleet.box.home, 'clone', '-q', origin, checkout);
  return { origin, checkout };
}
