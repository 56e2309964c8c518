// Removes a test's temp dir whatever the test left in it: a dir it made read-only or unreadable,
// a socket a process still listens on, a file system it mounted there, a process that still
// writes a file into it as it is emptied.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** True once `dir` is gone (or was never there). */
export async function removeDir(dir: string): Promise<boolean> {
  await unmountUnder(dir);
  // Retries: a process that outlives its test (a job's supervisor, a service being stopped) may add
  // a file as the dir is emptied (ENOTEMPTY).
  const options = { recursive: true, force: true, maxRetries: 10, retryDelay: 100 } as const;
  try {
    await rm(dir, options);
  } catch {
    // Without root, a dir without write or search permission cannot be emptied: opened up first.
    await openUp(dir);
    await rm(dir, options).catch(() => undefined);
  }
  return !existsSync(dir);
}

/** Mount points at or under `dir` (deepest first): removing across one would empty what it shows. */
export async function mountsUnder(dir: string): Promise<string[]> {
  const table = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const points = table
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined)
    .map((point) =>
      point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))),
    )
    .filter((point) => point === dir || point.startsWith(`${dir}/`));
  return points.sort((a, b) => b.length - a.length);
}

async function unmountUnder(dir: string): Promise<void> {
  for (const point of await mountsUnder(dir)) {
    // Lazy: detaches the mount even while a process still has a file open on it.
    await promisify(execFile)('umount', ['-l', point]).catch(() => undefined);
  }
}

async function openUp(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  await Promise.all(
    entries.filter((entry) => entry.isDirectory()).map((entry) => openUp(join(dir, entry.name))),
  );
}
