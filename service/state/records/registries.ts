// The repository and worktree registries (repositories.json, worktrees.json). Placement remembers
// what it used; cleanup drops only records whose paths are gone, rechecking absence under the
// registry's lock so a path recreated after the survey keeps its record. Registrations of a
// repository outlive its last worktree, and dropping a repository never drops worktree records.
// Lock order: repositories.json before worktrees.json, both after placements.json (lock.ts).

import { lstat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RepositoryRecord, WorktreeRecord } from '../../core/cleanup/registry-types.js';
import { messageOf } from '../../core/common/errors.js';
import { readState, updateState } from '../engine/store.js';
import type { StateIO } from '../io.js';
import {
  EMPTY_REPOSITORIES,
  EMPTY_WORKTREES,
  RepositoriesSchema,
  WorktreesSchema,
} from '../schemas/registry-schemas.js';

export interface Registries {
  repositories: RepositoryRecord[];
  worktrees: WorktreeRecord[];
}

/** Why a candidate record was not dropped. */
export interface KeptRecord {
  path: string;
  reason: string;
}

export interface DropReport<T> {
  dropped: T[];
  kept: KeptRecord[];
}

/** Decides, at the moment of the recheck, whether a path is gone. May throw when it cannot tell. */
export type IsAbsent = (path: string) => Promise<boolean>;

/** Both registries as they are now, read without a lock (writers replace the files atomically). */
export async function readRegistries(io: StateIO): Promise<Registries> {
  const [repositories, worktrees] = await Promise.all([
    readState(io.paths.repositories, RepositoriesSchema, io),
    readState(io.paths.worktrees, WorktreesSchema, io),
  ]);
  return {
    repositories: repositories?.repositories ?? [],
    worktrees: worktrees?.worktrees ?? [],
  };
}

/**
 * Records that placement used the repository whose main checkout is `path`: adds it, or refreshes
 * last_seen_ms (and origin, when given) keeping every other field. Returns the record written.
 */
export async function rememberRepository(
  io: StateIO,
  path: string,
  origin?: string,
): Promise<RepositoryRecord> {
  const key = resolve(path);
  return updateState(io.paths.repositories, RepositoriesSchema, io, (current) => {
    const registry = current ?? EMPTY_REPOSITORIES;
    const now = io.now();
    const existing = registry.repositories.find((record) => record.path === key);
    const record: RepositoryRecord = existing
      ? { ...existing, last_seen_ms: now, ...(origin === undefined ? {} : { origin }) }
      : { path: key, added_ms: now, last_seen_ms: now, ...(origin === undefined ? {} : { origin }) };
    const others = registry.repositories.filter((entry) => entry.path !== key);
    return { result: record, next: { ...registry, repositories: [...others, record] } };
  });
}

/**
 * Adds the worktree's record. A record already at the same path belonged to an earlier worktree
 * there and is replaced whole, so none of its facts (an old anchor) leak into the new one.
 */
export async function rememberWorktree(io: StateIO, record: WorktreeRecord): Promise<WorktreeRecord> {
  const key = resolve(record.path);
  return updateState(io.paths.worktrees, WorktreesSchema, io, (current) => {
    const registry = current ?? EMPTY_WORKTREES;
    const next: WorktreeRecord = { ...record, path: key, repository: resolve(record.repository) };
    const others = registry.worktrees.filter((entry) => entry.path !== key);
    return { result: next, next: { ...registry, worktrees: [...others, next] } };
  });
}

/** Forgets the worktree at `path` after its removal. Returns whether a record was there. */
export async function dropWorktreeRegistration(io: StateIO, path: string): Promise<boolean> {
  const key = resolve(path);
  return updateState(io.paths.worktrees, WorktreesSchema, io, (current) => {
    if (!current?.worktrees.some((entry) => entry.path === key)) return { result: false };
    return {
      result: true,
      next: { ...current, worktrees: current.worktrees.filter((entry) => entry.path !== key) },
    };
  });
}

/**
 * Drops the repository records among `candidates` whose paths `isAbsent` confirms gone, judged
 * under the repositories lock. Everything else stays and is reported in `kept` with its reason.
 */
export async function dropStaleRepositories(
  io: StateIO,
  candidates: readonly string[],
  isAbsent: IsAbsent,
): Promise<DropReport<RepositoryRecord>> {
  return updateState(io.paths.repositories, RepositoriesSchema, io, async (current) => {
    const registry = current ?? EMPTY_REPOSITORIES;
    const report = await judgeStale(registry.repositories, candidates, isAbsent);
    if (report.dropped.length === 0) return { result: report };
    const dropped = new Set(report.dropped.map((record) => record.path));
    const repositories = registry.repositories.filter((record) => !dropped.has(record.path));
    return { result: report, next: { ...registry, repositories } };
  });
}

/** As dropStaleRepositories, for worktrees.json under its own lock. */
export async function dropStaleWorktrees(
  io: StateIO,
  candidates: readonly string[],
  isAbsent: IsAbsent,
): Promise<DropReport<WorktreeRecord>> {
  return updateState(io.paths.worktrees, WorktreesSchema, io, async (current) => {
    const registry = current ?? EMPTY_WORKTREES;
    const report = await judgeStale(registry.worktrees, candidates, isAbsent);
    if (report.dropped.length === 0) return { result: report };
    const dropped = new Set(report.dropped.map((record) => record.path));
    const worktrees = registry.worktrees.filter((record) => !dropped.has(record.path));
    return { result: report, next: { ...registry, worktrees } };
  });
}

/**
 * True only when nothing is at `path` (lstat says ENOENT or ENOTDIR). A dangling symlink is
 * something, so it stays; a path that cannot be checked (EACCES) throws, so it stays too.
 */
export async function pathIsAbsent(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return true;
    throw error;
  }
}

async function judgeStale<T extends { path: string }>(
  records: readonly T[],
  candidates: readonly string[],
  isAbsent: IsAbsent,
): Promise<DropReport<T>> {
  const report: DropReport<T> = { dropped: [], kept: [] };
  for (const candidate of new Set(candidates.map((path) => resolve(path)))) {
    const record = records.find((entry) => entry.path === candidate);
    if (!record) {
      report.kept.push({ path: candidate, reason: 'not registered' });
      continue;
    }
    let absent: boolean;
    try {
      absent = await isAbsent(candidate);
    } catch (error) {
      report.kept.push({ path: candidate, reason: `cannot check: ${messageOf(error)}` });
      continue;
    }
    if (absent) report.dropped.push(record);
    else report.kept.push({ path: candidate, reason: 'path exists' });
  }
  return report;
}
