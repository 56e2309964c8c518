// The repositories a cleanup pass looks at (spec, "Cleanup"): the caller's, the configured
// cleanup.repositories, those remembered in repositories.json (and named by worktree records), and
// those the terminal layer discovers in live pane directories and Herdr workspaces; never a scan of
// the home directory. An absent remembered repository is the only removable
// repositories entry; configured, unreadable and dangling paths stay report-only.

import { lstat, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { messageOf } from '../core/common/errors.js';
import { type RepositoryIdentity, repositoryAt } from '../git/repository.js';
import type { GitIO } from '../git/run-git.js';
import type { RepositoryEntry } from './doctor-report.js';

export type RepositorySource = RepositoryEntry['sources'][number];

export interface RepositoryCandidate {
  path: string;
  source: RepositorySource;
}

export interface DiscoveredRepository {
  entry: RepositoryEntry;
  /** Set when the path is a repository with a main checkout. */
  identity: RepositoryIdentity | null;
}

type PathState = { state: 'present' } | { state: 'absent' | 'dangling' | 'unreadable'; reason: string };

async function pathState(path: string): Promise<PathState> {
  let link: Awaited<ReturnType<typeof lstat>>;
  try {
    link = await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'absent', reason: 'the path is gone' };
    return { state: 'unreadable', reason: `cannot read the path (${code ?? messageOf(error)})` };
  }
  if (link.isSymbolicLink()) {
    try {
      await stat(path);
    } catch {
      return { state: 'dangling', reason: 'a symlink to nothing' };
    }
  }
  return { state: 'present' };
}

/** The caller's repository, when its directory is inside one. */
export async function callerRepository(cwd: string, io: GitIO): Promise<RepositoryIdentity | null> {
  try {
    return await repositoryAt(cwd, io);
  } catch {
    return null;
  }
}

/**
 * One entry per repository (merged by Git common directory) or per unusable path. `caller` is the
 * caller's repository, already identified.
 */
export async function discoverRepositories(
  candidates: readonly RepositoryCandidate[],
  caller: RepositoryIdentity | null,
  io: GitIO,
): Promise<DiscoveredRepository[]> {
  const byCommon = new Map<string, DiscoveredRepository>();
  const byPath = new Map<string, DiscoveredRepository>();
  /** Paths already identified, so a path named twice is read once. */
  const seen = new Map<string, string>();
  const add = (identity: RepositoryIdentity, source: RepositorySource): void => {
    const known = byCommon.get(identity.commonDir);
    if (known) {
      if (!known.entry.sources.includes(source)) known.entry.sources.push(source);
      return;
    }
    byCommon.set(identity.commonDir, {
      identity,
      entry: {
        path: identity.main ?? identity.commonDir,
        sources: [source],
        state: 'ok',
        removable: false,
        reason: identity.main === null ? 'a bare repository: nothing to check out' : 'repository',
        default_branch: null,
        warnings: [],
      },
    });
  };
  if (caller) add(caller, 'caller');
  for (const candidate of candidates) {
    const path = resolve(candidate.path);
    const known = byPath.get(path) ?? byCommon.get(seen.get(path) ?? '');
    if (known) {
      if (!known.entry.sources.includes(candidate.source)) known.entry.sources.push(candidate.source);
      continue;
    }
    const state = await pathState(path);
    let found: DiscoveredRepository;
    if (state.state === 'present') {
      try {
        const identity = await repositoryAt(path, io);
        seen.set(path, identity.commonDir);
        add(identity, candidate.source);
        continue;
      } catch (error) {
        found = unusable(
          path,
          candidate.source,
          'not_a_repository',
          `not a repository (${messageOf(error)})`,
        );
      }
    } else {
      found = unusable(path, candidate.source, state.state, state.reason);
    }
    // A pane or workspace outside any repository is simply not a repository's.
    if (candidate.source !== 'discovered') byPath.set(path, found);
  }
  const all = [...byCommon.values(), ...byPath.values()];
  for (const { entry } of all) {
    if (
      entry.state === 'absent' &&
      entry.sources.includes('remembered') &&
      !entry.sources.includes('config')
    ) {
      entry.removable = true;
      entry.reason = 'remembered repository is gone: its record is removed';
    }
  }
  return all;
}

function unusable(
  path: string,
  source: RepositorySource,
  state: RepositoryEntry['state'],
  reason: string,
): DiscoveredRepository {
  return {
    identity: null,
    entry: { path, sources: [source], state, removable: false, reason, default_branch: null, warnings: [] },
  };
}
