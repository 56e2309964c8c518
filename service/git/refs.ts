// A repository's refs in one `git for-each-ref` (tips, symbolic targets, upstreams and the worktree
// that has each branch checked out), the default branch Git names for the remote, and the fetch that
// each cleanup pass runs before remote-tracking refs count.

import { FETCH_TIMEOUT_MS, failureOf, type GitIO, gitIO, gitText, runGit, succeeded } from './run-git.js';

export interface GitRef {
  /** Full name: `refs/heads/x`, `refs/remotes/origin/x`. */
  name: string;
  sha: string;
  /** The target of a symbolic ref (`refs/remotes/origin/HEAD`), else null. */
  symref: string | null;
  upstream: string | null;
  /** The checkout that has this branch checked out, else null. */
  worktree: string | null;
  /** The tree of the commit it points at ('' for a ref to anything else). */
  tree: string;
}

const FORMAT = ['%(objectname)', '%(refname)', '%(symref)', '%(upstream)', '%(worktreepath)', '%(tree)'].join(
  '%00',
);
const FIELDS = 6;

/** Parses for-each-ref output whose records are NUL-separated fields ending in NUL and a newline. */
export function parseRefs(text: string): GitRef[] {
  const fields = text.split('\0');
  const refs: GitRef[] = [];
  for (let i = 0; i + FIELDS <= fields.length; i += FIELDS) {
    const [sha, name, symref, upstream, worktree, tree] = fields.slice(i, i + FIELDS).map((f) => f ?? '');
    const cleanSha = (sha ?? '').replace(/^\n/, '');
    if (!name || !cleanSha) continue;
    refs.push({
      name,
      sha: cleanSha,
      symref: symref || null,
      upstream: upstream || null,
      worktree: worktree || null,
      tree: tree ?? '',
    });
  }
  return refs;
}

/** Local branches and remote-tracking refs, in one process. */
export async function readRefs(cwd: string, io: GitIO): Promise<GitRef[]> {
  const text = await gitText(['for-each-ref', `--format=${FORMAT}%00`, 'refs/heads', 'refs/remotes'], {
    ...gitIO(io),
    cwd,
  });
  return parseRefs(text);
}

export interface DefaultBranch {
  /** The local name: what `refs/remotes/origin/HEAD` points at, else `main`. */
  name: string;
  /** The ref integration is judged against: the remote default branch, else the local one; null if neither exists. */
  target: string | null;
  /** Every existing ref that is the default branch (remote and local): both hold commits. */
  refs: string[];
}

export function defaultBranchOf(refs: readonly GitRef[]): DefaultBranch {
  const head = refs.find((ref) => ref.name === 'refs/remotes/origin/HEAD');
  const pointed = head?.symref?.match(/^refs\/remotes\/origin\/(.+)$/)?.[1];
  const name = pointed ?? 'main';
  const names = new Set(refs.map((ref) => ref.name));
  const remote = `refs/remotes/origin/${name}`;
  const local = `refs/heads/${name}`;
  const present = [remote, local].filter((ref) => names.has(ref));
  return { name, target: present[0] ?? null, refs: present };
}

export type FetchOutcome = { ok: true } | { ok: false; error: string };

/**
 * `git fetch --all --prune`. Run in its own session, so an SSH remote cannot prompt on the terminal:
 * a remote that needs a password fails like an unreachable one, and the failure is a warning.
 * Without the automatic maintenance (gc) a fetch starts afterwards: a survey refreshes
 * remote-tracking refs and changes nothing else (and waits for no extra process).
 */
export async function fetchAll(cwd: string, io: GitIO): Promise<FetchOutcome> {
  const result = await runGit(
    // --no-auto-maintenance: Git 2.29 (rev-parse's --path-format, which dogsled needs, is 2.31).
    ['fetch', '--all', '--prune', '--quiet', '--recurse-submodules=no', '--no-auto-maintenance'],
    { ...gitIO(io), cwd, timeoutMs: FETCH_TIMEOUT_MS, detached: true },
  );
  if (succeeded(result)) return { ok: true };
  return { ok: false, error: failureOf(result, FETCH_TIMEOUT_MS) };
}
