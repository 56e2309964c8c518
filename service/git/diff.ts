// Tree differences for the loss rule, many at once: one `git diff-tree --stdin` answers every
// (from, to) pair of commits, path by path with modes and object ids, renames never followed.

import { type DiffPair, diffKey } from '../core/cleanup/loss-integration.js';
import type { PathChange, TreeDiff } from '../core/cleanup/loss-types.js';
import { type GitIO, gitIO, gitText, splitNul } from './run-git.js';

const NULL_MODE = '000000';

/**
 * Parses diff-tree `-z --always` output: one header field per input line (the first commit of the
 * line), then `:m1 m2 o1 o2 S` and path fields for each changed path.
 */
export function parseDiffTree(text: string, expected: number): TreeDiff[] {
  const fields = splitNul(text);
  const diffs: TreeDiff[] = [];
  let current: TreeDiff | undefined;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? '';
    if (!field.startsWith(':')) {
      current = new Map();
      diffs.push(current);
      continue;
    }
    const path = fields[++i];
    if (current === undefined || path === undefined) throw new Error('diff-tree: record outside a header');
    const [oldMode, newMode, oldOid, newOid] = field.slice(1).split(' ');
    const change: PathChange = {
      before: oldMode === NULL_MODE || !oldMode || !oldOid ? null : { mode: oldMode, oid: oldOid },
      after: newMode === NULL_MODE || !newMode || !newOid ? null : { mode: newMode, oid: newOid },
    };
    current.set(path, change);
  }
  if (diffs.length !== expected) {
    throw new Error(`diff-tree answered ${diffs.length} diffs for ${expected} pairs`);
  }
  return diffs;
}

/** The path changes of each pair, keyed by diffKey. */
export async function diffTrees(
  cwd: string,
  pairs: readonly DiffPair[],
  io: GitIO,
): Promise<Map<string, TreeDiff>> {
  const unique = new Map(pairs.map((pair) => [diffKey(pair), pair]));
  const result = new Map<string, TreeDiff>();
  if (unique.size === 0) return result;
  const list = [...unique.values()];
  // "<to> <from>": diff-tree compares the first commit of a line with the ones after it as parents.
  const input = `${list.map((pair) => `${pair.to} ${pair.from}`).join('\n')}\n`;
  const text = await gitText(['diff-tree', '-r', '-z', '--no-renames', '--always', '--stdin'], {
    ...gitIO(io),
    cwd,
    input,
  });
  const diffs = parseDiffTree(text, list.length);
  list.forEach((pair, index) => {
    result.set(diffKey(pair), diffs[index] ?? new Map());
  });
  return result;
}
