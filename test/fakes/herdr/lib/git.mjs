// The git work behind worktree.* (real `git` in the test's repositories, run without a shell).
// Mirrors Herdr's worktree.rs: repo identity from rev-parse, entries from `worktree list
// --porcelain`, add with a new or existing branch, remove without ever deleting the branch.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';

export function git(cwd, args) {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-C', cwd, ...args],
      { encoding: 'utf8', maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        resolve({
          ok: !error,
          stdout: stdout.trim(),
          stderr: stderr.trim() || stdout.trim() || String(error ?? ''),
        });
      },
    );
  });
}

export function canonical(path) {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Repo identity of a directory, or undefined outside a work tree. */
export async function gitSpace(path) {
  const result = await git(path, [
    'rev-parse',
    '--path-format=absolute',
    '--show-toplevel',
    '--git-common-dir',
    '--git-dir',
  ]);
  if (!result.ok) return undefined;
  const [toplevel, commonDir, gitDir] = result.stdout.split('\n');
  if (!toplevel || !commonDir || !gitDir) return undefined;
  const isLinked = canonical(gitDir) !== canonical(commonDir);
  const repoRoot = isLinked ? ((await listWorktrees(toplevel))[0]?.path ?? dirname(commonDir)) : toplevel;
  return {
    key: createHash('sha256').update(canonical(commonDir)).digest('hex').slice(0, 16),
    repoRoot: canonical(repoRoot),
    repoName: basename(repoRoot),
    checkout: canonical(toplevel),
    isLinked,
  };
}

/** Parsed `git worktree list --porcelain` entries (the first one is the main checkout). */
export async function listWorktrees(root) {
  const result = await git(root, ['worktree', 'list', '--porcelain']);
  if (!result.ok) throw new Error(result.stderr);
  const entries = [];
  let current;
  for (const line of result.stdout.split('\n')) {
    if (line.startsWith('worktree ')) {
      current = {
        path: line.slice(9),
        branch: undefined,
        isBare: false,
        isDetached: false,
        isPrunable: false,
      };
      entries.push(current);
    } else if (!current) continue;
    else if (line.startsWith('branch ')) current.branch = line.slice(7).replace(/^refs\/heads\//, '');
    else if (line === 'bare') current.isBare = true;
    else if (line === 'detached') current.isDetached = true;
    else if (line.startsWith('prunable')) current.isPrunable = true;
  }
  return entries;
}

export async function isDirty(path) {
  const result = await git(path, ['status', '--porcelain']);
  return result.ok && result.stdout !== '';
}

export async function addWorktree(root, path, branch, base) {
  const exists = await git(root, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]);
  const args = exists.ok
    ? ['worktree', 'add', '--quiet', path, branch]
    : ['worktree', 'add', '--quiet', '-b', branch, path, base];
  const result = await git(root, args);
  if (!result.ok) throw new Error(result.stderr);
}

export async function removeWorktree(root, path, force) {
  const result = await git(root, ['worktree', 'remove', ...(force ? ['--force'] : []), path]);
  if (!result.ok) throw new Error(result.stderr);
}

/** `worktree/brave-river` → `worktree-brave-river` (Herdr's branch_to_path_slug). */
export function branchSlug(branch) {
  const slug = branch
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'worktree' : slug;
}

const ADJECTIVES = ['brave', 'calm', 'clear', 'green', 'lucky', 'quiet', 'rapid', 'silver'];
const NOUNS = ['river', 'cloud', 'field', 'forest', 'harbor', 'meadow', 'stone', 'valley'];

export function generatedBranch(seed) {
  const adjective = ADJECTIVES[seed % ADJECTIVES.length];
  const noun = NOUNS[Math.floor(seed / ADJECTIVES.length) % NOUNS.length];
  return `worktree/${adjective}-${noun}-${(seed & 0xffff).toString(16).padStart(4, '0')}`;
}
