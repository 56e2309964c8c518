// What Git knows about a repository's worktrees (`git worktree list --porcelain -z`): path, HEAD,
// branch or detached, and the locked and prunable annotations with their reasons. The first entry
// is the main worktree (or the bare repository).

import { type GitIO, gitIO, gitText, splitNul } from './run-git.js';

export interface GitWorktree {
  path: string;
  /** null for a bare repository or an unborn branch. */
  head: string | null;
  /** Full ref name (`refs/heads/x`), or null when detached or bare. */
  branch: string | null;
  detached: boolean;
  bare: boolean;
  /** null when not locked; '' when locked without a reason. */
  locked: string | null;
  /** null unless git says the worktree can be pruned; the text is git's reason. */
  prunable: string | null;
  /** The first entry: the main worktree. */
  main: boolean;
}

export function parseWorktreeList(text: string): GitWorktree[] {
  const worktrees: GitWorktree[] = [];
  let current: GitWorktree | undefined;
  for (const field of splitNul(text)) {
    if (field === '') {
      current = undefined;
      continue;
    }
    const space = field.indexOf(' ');
    const key = space === -1 ? field : field.slice(0, space);
    const value = space === -1 ? '' : field.slice(space + 1);
    if (key === 'worktree') {
      current = {
        path: value,
        head: null,
        branch: null,
        detached: false,
        bare: false,
        locked: null,
        prunable: null,
        main: worktrees.length === 0,
      };
      worktrees.push(current);
      continue;
    }
    if (!current) continue;
    if (key === 'HEAD') current.head = /^0+$/.test(value) ? null : value;
    else if (key === 'branch') current.branch = value;
    else if (key === 'detached') current.detached = true;
    else if (key === 'bare') current.bare = true;
    else if (key === 'locked') current.locked = value;
    else if (key === 'prunable') current.prunable = value;
  }
  return worktrees;
}

/** The worktrees of the repository that `cwd` belongs to (any of its checkouts). */
export async function listWorktrees(cwd: string, io: GitIO): Promise<GitWorktree[]> {
  const text = await gitText(['worktree', 'list', '--porcelain', '-z'], { ...gitIO(io), cwd });
  return parseWorktreeList(text);
}
