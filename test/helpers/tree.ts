// Inline fixture trees: write { 'a/b.txt': 'content' } under a fresh temp dir and hand back its
// path. Tests describe the files they need next to the assertions that use them.

import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type Tree = Record<string, string>;

export async function tempDir(prefix = 'dogsled-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
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
