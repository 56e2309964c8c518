// zod schemas of the two registries: repositories.json (repositories that placement has seen) and
// worktrees.json (worktrees that dogsled made). Objects are loose, so fields written by a newer
// dogsled survive a read-modify-write by this one.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import type {
  Repositories,
  RepositoryRecord,
  WorktreeRecord,
  Worktrees,
} from '../../core/cleanup/registry-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';

const ms = lazySchema(() => z.int());
const path = lazySchema(() => z.string().check(z.minLength(1)));

export const RepositoryRecordSchema = lazySchema(() =>
  z.looseObject({
    /** The main checkout. */
    path,
    added_ms: ms,
    /** The last time placement used it. */
    last_seen_ms: ms,
    /** `git remote get-url origin` when placement knew it. */
    origin: z.optional(z.string()),
  }),
);

export const RepositoriesSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    repositories: z.array(RepositoryRecordSchema),
  }),
);

export const WorktreeRecordSchema = lazySchema(() =>
  z.looseObject({
    /** The linked worktree. */
    path,
    /** Its repository's main checkout. */
    repository: path,
    branch: z.string(),
    created_ms: ms,
    /** The Herdr workspace opened as the main checkout's anchor for this worktree, if any. */
    anchor_workspace: z.optional(z.string()),
  }),
);

export const WorktreesSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    worktrees: z.array(WorktreeRecordSchema),
  }),
);

export const EMPTY_REPOSITORIES: Repositories = { version: 1, repositories: [] };
export const EMPTY_WORKTREES: Worktrees = { version: 1, worktrees: [] };

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type RegistrySchemasMatch = [
  Check<Matches<typeof RepositoryRecordSchema, RepositoryRecord>>,
  Check<Matches<typeof RepositoriesSchema, Repositories>>,
  Check<Matches<typeof WorktreeRecordSchema, WorktreeRecord>>,
  Check<Matches<typeof WorktreesSchema, Worktrees>>,
];
