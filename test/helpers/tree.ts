// Inline fixture trees: write { 'a/b.txt': 'content' } under a fresh temp dir and hand back its
// path. Tests describe the files they need next to the assertions that use them.
//
// Every temp dir a test makes comes from tempDir: it is noted here, and the setup file
// (test/helpers/temp-cleanup.ts) removes the file's dirs once its own after-hooks have run. The
// run's token in the name lets the global teardown find what a file left behind (a worker killed
// before its hooks ran, a dir a late process made again) and list it.

import { appendFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { removeDir } from './remove-dir.js';

export type Tree = Record<string, string>;

/** The env variable that carries this run's token from the global setup to the workers. */
export const RUN_TOKEN_ENV = 'TEST_TEMP_RUN';

const made = new Set<string>();

export async function tempDir(prefix = 'dogsled-test-'): Promise<string> {
  const run = process.env[RUN_TOKEN_ENV];
  const dir = await mkdtemp(join(tmpdir(), run ? `${prefix}${run}-` : prefix));
  made.add(dir);
  return dir;
}

/**
 * Where each removed dir is noted with the test file that made it (`dir<TAB>file` lines), so the
 * global teardown can name the file of a dir made again after it. Not a dir: the teardown's own
 * search (`-TOKEN-` in a name) does not find it.
 */
export function removedDirsLog(token: string): string {
  return join(tmpdir(), `dogsled-removed.${token}.tsv`);
}

/**
 * Removes every dir tempDir made in this process so far; answers those that would not go. `file`:
 * the test file they were made for, noted in the run's log of removed dirs.
 */
export async function removeTempDirs(file?: string): Promise<string[]> {
  const dirs = [...made];
  made.clear();
  const run = process.env[RUN_TOKEN_ENV];
  if (run && file && dirs.length > 0)
    await appendFile(removedDirsLog(run), dirs.map((dir) => `${dir}\t${file}\n`).join('')).catch(
      () => undefined,
    );
  const failed = await Promise.all(dirs.map(async (dir) => ((await removeDir(dir)) ? undefined : dir)));
  return failed.filter((dir) => dir !== undefined);
}

export async function writeTree(root: string, tree: Tree): Promise<string> {
  for (const [relative, content] of Object.entries(tree)) {
    const path = join(root, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
  return root;
}

export async function fixtureTree(tree: Tree): Promise<string> {
  return writeTree(await tempDir(), tree);
}
