// What a test runs as another user (a peer's account, `nobody`) must be a copy that user can read:
// the checkout may sit in a directory only its owner may enter (mode 0700, as `mktemp -d` makes
// it), where the bundle, the fakes and node_modules are out of their reach.

import { chmod, cp, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/** Copies `source` to `target` (a directory under a world-traversable one), readable by every user. */
export async function readableCopy(source: string, target: string): Promise<string> {
  await cp(source, target, { recursive: true });
  await worldReadable(target);
  return target;
}

/**
 * A copy of the built CLI under `dir` that any user can run; returns its entry. A test that runs the
 * CLI as another user passes it as `runCli`'s `cli`.
 */
export async function readableCli(dir: string): Promise<string> {
  const copy = await readableCopy(join(ROOT, 'dist'), join(dir, 'dist'));
  await chmod(dir, 0o755);
  return join(copy, 'dogsled.cjs');
}

/**
 * A copy of the test fakes (fake Herdr, fake agents) under `dir`, with the one package the fake Herdr
 * loads beside them; returns the copied `test/fakes`.
 */
export async function readableFakes(dir: string): Promise<string> {
  const fakes = await readableCopy(join(ROOT, 'test', 'fakes'), join(dir, 'test', 'fakes'));
  await readableCopy(join(ROOT, 'node_modules', 'smol-toml'), join(dir, 'node_modules', 'smol-toml'));
  await chmod(dir, 0o755);
  await chmod(join(dir, 'test'), 0o755);
  await chmod(join(dir, 'node_modules'), 0o755);
  return fakes;
}

async function worldReadable(path: string): Promise<void> {
  const info = await stat(path);
  // Executables stay executable (the fake agents' and fake Herdr's bin scripts).
  const mode = info.isDirectory() || (info.mode & 0o100) !== 0 ? 0o755 : 0o644;
  await chmod(path, mode);
  if (info.isDirectory()) for (const name of await readdir(path)) await worldReadable(join(path, name));
}
