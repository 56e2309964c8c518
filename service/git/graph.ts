// Commit graphs for the loss rule, each in one `git rev-list`: the commits that some ref has and the
// default branch lacks (with their parents, so every "is this held" question is answered in
// memory), and the newest part of the default branch where applying commits are searched.

import { type GitIO, gitIO, gitText } from './run-git.js';

export interface CommitGraph {
  /** Each commit with its parents, in rev-list order. */
  parents: Map<string, string[]>;
  /** Commits in rev-list order (for the window: topological, newest first). */
  order: string[];
}

export function parseParents(text: string): CommitGraph {
  const parents = new Map<string, string[]>();
  const order: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [sha, ...rest] = line.split(' ');
    if (!sha) continue;
    parents.set(sha, rest);
    order.push(sha);
  }
  return { parents, order };
}

/** Commits reachable from `tips` and from none of `exclude`, with their parents. */
export async function readGraph(
  cwd: string,
  tips: readonly string[],
  exclude: readonly string[],
  io: GitIO,
): Promise<CommitGraph> {
  if (tips.length === 0) return { parents: new Map(), order: [] };
  // `^sha` rather than a `--not` line: Git before 2.42 takes no options on rev-list's stdin.
  const lines = [...new Set(tips), ...[...new Set(exclude)].map((sha) => `^${sha}`)];
  const input = `${lines.join('\n')}\n`;
  const text = await gitText(['rev-list', '--parents', '--stdin'], { ...gitIO(io), cwd, input });
  return parseParents(text);
}

/** The newest `limit` commits of `ref` in topological order: every child precedes its parents. */
export async function readWindow(cwd: string, ref: string, limit: number, io: GitIO): Promise<CommitGraph> {
  const text = await gitText(['rev-list', '--topo-order', '--parents', `--max-count=${limit}`, ref, '--'], {
    ...gitIO(io),
    cwd,
  });
  return parseParents(text);
}
