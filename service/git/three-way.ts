// The content half of the three-way check, decided by Git: for each question (base, ours, theirs
// blobs of one path), what `git merge-tree --write-tree` makes of it, or that it conflicts. All the
// questions of a repository go into one merge: each is its own path of three synthetic flat trees
// whose commits share the base commit, so every path merges on its own and renames cannot pair two
// paths (none is added or deleted, and merge.renames is off). Objects go to a scratch directory.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { questionKey } from '../core/cleanup/loss-integration.js';
import type { MergeAnswer, MergeQuestion } from '../core/cleanup/loss-types.js';
import { DogsledError } from '../core/common/errors.js';
import { ScratchObjects } from './objects.js';
import { failureOf, type GitIO, gitIO, gitText, runGit, splitNul } from './run-git.js';

/** Git's answer to each question, keyed by questionKey. */
export async function answerMerges(
  cwd: string,
  objectDir: string,
  questions: readonly MergeQuestion[],
  io: GitIO,
): Promise<Map<string, MergeAnswer>> {
  const unique = [...new Map(questions.map((q) => [questionKey(q), q])).values()];
  const answers = new Map<string, MergeAnswer>();
  const first = unique[0];
  if (!first) return answers;
  const scratch = await mkdtemp(join(tmpdir(), 'dogsled-merge-'));
  try {
    const objects = new ScratchObjects(join(scratch, 'objects'), first.base);
    const name = (index: number): string => String(index).padStart(6, '0');
    const tree = (side: 'base' | 'ours' | 'theirs') =>
      objects.tree(unique.map((q, index) => ({ mode: q.mode, name: name(index), oid: q[side] })));
    const base = await objects.commit(await tree('base'), []);
    const ours = await objects.commit(await tree('ours'), [base]);
    const theirs = await objects.commit(await tree('theirs'), [base]);
    const extraEnv = { GIT_OBJECT_DIRECTORY: objects.dir, GIT_ALTERNATE_OBJECT_DIRECTORIES: objectDir };
    const merged = await runGit(
      ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', ours, theirs],
      { ...gitIO(io), cwd, extraEnv },
    );
    // 0: clean, 1: conflicts (the tree is still written); anything else is a failure.
    if (merged.truncated || (merged.exitCode !== 0 && merged.exitCode !== 1))
      throw new DogsledError(`${cwd}: ${failureOf(merged)}`);
    const [treeId, ...conflicted] = splitNul(merged.stdout.toString('utf8'));
    if (!treeId) throw new DogsledError(`${cwd}: git merge-tree printed no tree`);
    const conflicts = new Set(conflicted.filter((path) => path !== ''));
    const listing = await gitText(['ls-tree', '-z', treeId], { ...gitIO(io), cwd, extraEnv });
    const result = new Map<string, string>();
    for (const entry of splitNul(listing)) {
      const tab = entry.indexOf('\t');
      const [, , oid] = entry.slice(0, tab).split(' ');
      if (oid) result.set(entry.slice(tab + 1), oid);
    }
    unique.forEach((question, index) => {
      const path = name(index);
      const oid = result.get(path);
      answers.set(
        questionKey(question),
        conflicts.has(path) || oid === undefined ? { conflict: true } : { conflict: false, merged: oid },
      );
    });
    return answers;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
