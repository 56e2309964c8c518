// A checkout's place and origin, for work sent to another host (spec, "Repository configuration"):
// the caller names its repository by the top of its checkout and `git remote get-url origin`; the
// host that runs the work compares its own checkout's origin with it, or clones from it when it has
// none. URLs and paths are only ever argv words, after `--` where git would read an option.

import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DogsledError } from '../core/common/errors.js';
import { SETUP_CAP_MS } from '../core/placement/budget.js';
import { failureOf, type GitIO, gitIO, runGit, succeeded } from './run-git.js';

/** The top of the checkout `path` is in, or null when it is in none. */
export async function checkoutTop(path: string, io: GitIO): Promise<string | null> {
  const result = await runGit(['rev-parse', '--show-toplevel'], { ...gitIO(io), cwd: path });
  if (!succeeded(result)) return null;
  return result.stdout.toString('utf8').replace(/\n$/, '');
}

/** `git remote get-url origin` of the checkout at `path`, or null when it has no origin. */
export async function originOf(path: string, io: GitIO): Promise<string | null> {
  const result = await runGit(['remote', 'get-url', 'origin'], { ...gitIO(io), cwd: path });
  if (!succeeded(result)) return null;
  const url = result.stdout.toString('utf8').replace(/\n$/, '');
  return url === '' ? null : url;
}

/** `git clone -- ORIGIN PATH` (parents made); a failure names the origin and git's last line. */
export async function cloneCheckout(
  origin: string,
  path: string,
  io: GitIO & { timeoutMs?: number },
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const timeoutMs = io.timeoutMs ?? SETUP_CAP_MS;
  const result = await runGit(['clone', '--quiet', '--', origin, path], {
    ...gitIO(io),
    cwd: dirname(path),
    timeoutMs,
    detached: true,
  });
  if (!succeeded(result)) {
    throw new DogsledError(`cannot clone ${origin} into ${path}: ${failureOf(result, timeoutMs)}`);
  }
}
