// Real repositories for the loss-rule and cleanup tests: a main checkout and a bare "remote" copied
// from a template built once per test file (cp -a is far faster than git init + commit + push), with
// fixed identities and a date that advances per commit so histories are reproducible. Also a
// byte-for-byte snapshot of a checkout tree and a CLI runner that sets the caller's cwd.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { type CleanupIO, type CleanupSurvey, surveyCleanup } from '../../service/cleanup/doctor.js';
import type { PruneReport } from '../../service/cleanup/doctor-report.js';
import { applyPlan } from '../../service/cleanup/prune.js';
import { type PruneCategory, selectPlan } from '../../service/core/cleanup/prune-plan.js';
import { DEFAULT_CONFIG } from '../../service/state/config/config.js';
import { statePaths } from '../../service/state/paths.js';
import { type CliResult, runCli } from './cli.js';
import { tempDir } from './tree.js';

const run = promisify(execFile);

export type Files = Record<string, string | null>;

/** A ten-line file: `<prefix>1` … `<prefix>10`. */
export const lines = (prefix: string): string =>
  `${Array.from({ length: 10 }, (_, i) => `${prefix}${i + 1}`).join('\n')}\n`;

/** `lines(prefix)` with some lines (1-based) replaced. */
export function changed(prefix: string, replace: Record<number, string>): string {
  const list = lines(prefix).split('\n');
  for (const [n, text] of Object.entries(replace)) list[Number(n) - 1] = text;
  return list.join('\n');
}

/** The first commit of every scenario: three ten-line files and an ignore list. */
export const INITIAL_FILES: Files = {
  'a.txt': lines('a'),
  'b.txt': lines('b'),
  'c.txt': lines('c'),
  '.gitignore': 'ignored/\n*.log\n',
};

/** Replaces line `n` (1-based) of a ten-line file of the initial commit. */
export function edit(file: 'a' | 'b' | 'c', n: number, text: string, base?: string): string {
  const source = (base ?? INITIAL_FILES[`${file}.txt`] ?? '').split('\n');
  source[n - 1] = text;
  return source.join('\n');
}

export function gitTestEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  return {
    ...env,
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'Test Committer',
    GIT_COMMITTER_EMAIL: 'committer@example.com',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    LC_ALL: 'C',
    // No automatic maintenance after a test's own commits and pushes: each is one more git process
    // (some 30 ms here) that no test asserts on. git-layer's test that dogsled's fetch starts no
    // maintenance runs it with the process's env, where git's default holds.
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: 'maintenance.auto',
    GIT_CONFIG_VALUE_0: 'false',
    GIT_CONFIG_KEY_1: 'gc.auto',
    GIT_CONFIG_VALUE_1: '0',
    ...extra,
  };
}

export class Repo {
  private clock = 0;

  constructor(
    /** Holds `main/` and `remote.git/`. */
    readonly root: string,
  ) {}

  get main(): string {
    return join(this.root, 'main');
  }

  get remote(): string {
    return join(this.root, 'remote.git');
  }

  async git(args: string[], cwd = this.main): Promise<string> {
    const date = `${1_700_000_000 + this.clock++ * 60} +0000`;
    const env = gitTestEnv({ GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
    const { stdout } = await run('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  }

  async sha(ref: string, cwd = this.main): Promise<string> {
    return (await this.git(['rev-parse', ref], cwd)).trim();
  }

  /** Writes files (null deletes), stages everything and commits; returns the new commit. */
  async commit(files: Files, message: string, cwd = this.main): Promise<string> {
    await writeFiles(cwd, files);
    await this.git(['add', '-A'], cwd);
    // The new commit's id from commit's own summary line (`[main 0fb7…] message`, unabbreviated),
    // not from one more git process: a rev-parse was a third of every commit's processes.
    const said = await this.git(['-c', 'core.abbrev=no', 'commit', '--allow-empty', '-m', message], cwd);
    const sha = /^\[[^\n]*? ([0-9a-f]{40}|[0-9a-f]{64})\] /.exec(said)?.[1];
    if (sha === undefined) return this.sha('HEAD', cwd);
    // The clock moves as the rev-parse moved it, so every later commit keeps its date (and its id).
    this.clock++;
    return sha;
  }

  /** Checks `branch` out in the main checkout (creating it from `from`), runs `fn`, returns to main. */
  async on<T>(branch: string, fn: () => Promise<T>, from?: string): Promise<T> {
    await this.git(from === undefined ? ['checkout', '-q', branch] : ['checkout', '-q', '-b', branch, from]);
    try {
      return await fn();
    } finally {
      await this.git(['checkout', '-q', 'main']);
    }
  }

  /** A new branch from `from` with one commit per file set; returns the commits. */
  async branch(name: string, commits: Files[], from = 'main'): Promise<string[]> {
    return this.on(
      name,
      async () => {
        const shas: string[] = [];
        for (const [index, files] of commits.entries())
          shas.push(await this.commit(files, `${name} ${index + 1}`));
        return shas;
      },
      from,
    );
  }

  /** `git merge --squash` of `branch` into main, committed and pushed: how a forge squashes. */
  async squash(branch: string, message = `squash ${branch}`): Promise<string> {
    await this.git(['merge', '-q', '--squash', branch]);
    const sha = await this.commit({}, message);
    await this.push('main');
    return sha;
  }

  async push(...refs: string[]): Promise<void> {
    await this.git(['push', '-q', 'origin', ...refs]);
  }

  /** A linked worktree under main/.worktrees; `branch` is created from `base` unless it exists. */
  async worktree(
    branch: string,
    options: { base?: string; detach?: boolean; lock?: string } = {},
  ): Promise<string> {
    const path = join(this.main, '.worktrees', branch.replaceAll('/', '-'));
    const exists = (await this.git(['branch', '--list', branch])).trim() !== '';
    const args = options.detach
      ? ['worktree', 'add', '-q', '--detach', path, options.base ?? 'main']
      : exists
        ? ['worktree', 'add', '-q', path, branch]
        : ['worktree', 'add', '-q', '-b', branch, path, options.base ?? 'main'];
    await this.git(args);
    if (options.lock !== undefined) await this.git(['worktree', 'lock', '--reason', options.lock, path]);
    return path;
  }
}

let template: Promise<string> | undefined;
/** Every directory this file's helpers made, for removeScenarios. */
const made: string[] = [];

/** Removes the template and every repository made so far (call from afterAll). */
export async function removeScenarios(): Promise<void> {
  const roots = made.splice(0);
  template = undefined;
  // A file's shared serve stops after this (after-hooks run in reverse), and a git it runs in a
  // repository meanwhile can add a file as the directory is emptied (ENOTEMPTY): tried again.
  await Promise.all(
    roots.map((root) => rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })),
  );
}

async function buildTemplate(): Promise<string> {
  const root = await tempDir('dogsled-git-template-');
  made.push(root);
  const repo = new Repo(root);
  await run('git', ['init', '-q', '--bare', '-b', 'main', repo.remote], { env: gitTestEnv() });
  await mkdir(repo.main);
  await repo.git(['-c', 'init.defaultBranch=main', 'init', '-q']);
  // Worktrees live in .worktrees inside the main checkout (the spec's default dir): ignored there.
  await writeFile(join(repo.main, '.git', 'info', 'exclude'), '.worktrees/\n');
  await repo.commit(INITIAL_FILES, 'initial');
  await repo.git(['remote', 'add', 'origin', repo.remote]);
  await repo.git(['push', '-q', '-u', 'origin', 'main']);
  await repo.git(['remote', 'set-head', 'origin', 'main']);
  return root;
}

/** A fresh repository with one commit on main, pushed to its own bare remote. */
export async function freshRepo(): Promise<Repo> {
  template ??= buildTemplate();
  const source = await template;
  const root = await tempDir('dogsled-git-');
  made.push(root);
  await run('cp', ['-a', `${source}/.`, root]);
  const config = join(root, 'main', '.git', 'config');
  await writeFile(config, (await readFile(config, 'utf8')).replaceAll(source, root));
  return new Repo(root);
}

/**
 * An agent's worktree (locked `agent:worktree`) whose one commit main has taken by squash: what
 * cleanup removes without losing anything. Returns its path.
 */
export async function landedWorktree(repo: Repo, branch = 'landed'): Promise<string> {
  const path = await repo.worktree(branch, { lock: 'agent:worktree' });
  await repo.commit({ 'a.txt': edit('a', 2, 'A2') }, 'work', path);
  await repo.squash(branch);
  return path;
}

export async function writeFiles(root: string, files: Files): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    if (content === null) {
      await rm(target, { force: true });
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

/** Every file under `dir` (untracked and ignored included) with a hash of its bytes, `.git` too. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string): Promise<void> => {
    for (const entry of (await readdir(at, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(at, entry.name);
      const key = relative(dir, path);
      if (entry.isDirectory()) {
        out[`${key}/`] = 'dir';
        await walk(path);
      } else if (entry.isSymbolicLink()) {
        out[key] = `link:${await readlink(path)}`;
      } else {
        const stats = await lstat(path);
        out[key] = `${stats.mode.toString(8)}:${createHash('sha256')
          .update(await readFile(path))
          .digest('hex')}`;
      }
    }
  };
  await walk(dir);
  return out;
}

/** Runs the built CLI with `cwd` as the caller's directory (the repository it discovers). */
export function runCliIn(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return runCli(args, env, { timeoutMs: 30_000, ...options, cwd });
}

/**
 * What `dogsled doctor` and `prune` see for this repository, in-process: a private state dir under
 * the scenario's root, the repository configured in cleanup.repositories, and a caller outside it.
 */
export function cleanupIO(repo: Repo, extra: Partial<CleanupIO> = {}): CleanupIO {
  const warnings: string[] = [];
  return {
    paths: statePaths(join(repo.root, 'state')),
    now: () => Date.now(),
    warn: (line) => warnings.push(line),
    config: {
      ...structuredClone(DEFAULT_CONFIG),
      cleanup: { repositories: [repo.main], repository_paths: [repo.main] },
    },
    home: repo.root,
    env: process.env,
    callerCwd: repo.root,
    ...extra,
  };
}

export function doctorIn(repo: Repo, extra: Partial<CleanupIO> = {}): Promise<CleanupSurvey> {
  return surveyCleanup(cleanupIO(repo, extra), { processes: false, host: 'local' });
}

/** `dogsled prune --yes [categories]`, in-process. */
export async function pruneIn(
  repo: Repo,
  categories: PruneCategory[] = [],
  extra: Partial<CleanupIO> = {},
): Promise<{ survey: CleanupSurvey; report: PruneReport }> {
  const io = cleanupIO(repo, extra);
  const survey = await surveyCleanup(io, { processes: false, host: 'local' });
  const report = await applyPlan(io, survey, selectPlan(survey.plan, categories));
  return { survey, report };
}

/** The commit a ref points at, or null when it does not exist. */
export async function refSha(repo: Repo, ref: string): Promise<string | null> {
  try {
    return (await repo.git(['rev-parse', '--verify', '--quiet', ref])).trim() || null;
  } catch {
    return null;
  }
}
