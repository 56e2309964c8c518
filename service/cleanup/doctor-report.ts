// The documents `dogsled doctor --json` and `dogsled prune --json` print, with their zod schemas
// (validated in tests). Field names are snake_case like every other dogsled document. Doctor's
// workspaces and panes sections are null without Herdr, so "no Herdr" differs from "no panes".

import * as z from 'zod/mini';
import { lazySchema } from '../state/engine/lazy-schema.js';
import { landedDirtyFields, pruneEntryFields, unlinkedFields } from '../state/schemas/sweep-schemas.js';
import { PaneEntrySchema, WorkspaceEntrySchema } from './panes/doctor-section.js';

const HoldSchema = lazySchema(() =>
  z.object({
    kind: z.enum([
      'pane',
      'process',
      'caller',
      'process-table',
      'launch',
      'item',
      'agent',
      'lock',
      'unlinked',
    ]),
    reason: z.string(),
  }),
);

const AppliedRunSchema = lazySchema(() =>
  z.object({
    base: z.string(),
    first: z.string(),
    last: z.string(),
    commits: z.int(),
    by: z.string(),
  }),
);

const DirectProofSchema = lazySchema(() =>
  z.union([
    z.object({ kind: z.literal('ancestor'), ref: z.string() }),
    z.object({ kind: z.literal('applied'), ref: z.string(), runs: z.array(AppliedRunSchema) }),
  ]),
);

export const CommitsProofSchema = lazySchema(() =>
  z.union([
    DirectProofSchema,
    z.object({ kind: z.literal('held'), ref: z.string() }),
    z.object({ kind: z.literal('contained'), ref: z.string(), by: DirectProofSchema }),
    z.object({ kind: z.literal('deleted') }),
  ]),
);

export const WorktreeEntrySchema = lazySchema(() =>
  z.object({
    repository: z.string(),
    path: z.string(),
    branch: z.nullable(z.string()),
    head: z.nullable(z.string()),
    state: z.enum(['removable', 'kept', 'stale', 'unlinked', 'landed_dirty']),
    removable: z.boolean(),
    reason: z.string(),
    holds: z.array(HoldSchema),
    /** Present when removable: why nothing is lost, and what removal does first. */
    proof: z.nullable(
      z.object({
        checkout: z.enum(['clean', 'deleted-only']),
        restore: z.array(z.string()),
        ignored: z.int(),
        commits: CommitsProofSchema,
        unlock: z.boolean(),
        delete_branch: z.boolean(),
      }),
    ),
    registered: z.boolean(),
    locked: z.nullable(z.string()),
  }),
);

export const BranchEntrySchema = lazySchema(() =>
  z.object({
    repository: z.string(),
    branch: z.string(),
    head: z.string(),
    removable: z.boolean(),
    reason: z.string(),
    proof: z.nullable(CommitsProofSchema),
    worktree: z.nullable(z.string()),
  }),
);

export const RepositoryEntrySchema = lazySchema(() =>
  z.object({
    path: z.string(),
    /** caller: the caller's cwd; config: cleanup.repositories; remembered: repositories.json; worktree: a
     * worktrees.json record; discovered: live pane directories and Herdr workspaces. */
    sources: z.array(z.enum(['caller', 'config', 'remembered', 'worktree', 'discovered'])),
    state: z.enum(['ok', 'absent', 'dangling', 'unreadable', 'not_a_repository']),
    removable: z.boolean(),
    reason: z.string(),
    default_branch: z.nullable(z.string()),
    warnings: z.array(z.string()),
  }),
);

export const LandedDirtySchema = lazySchema(() => z.object(landedDirtyFields()));

export const JobEntrySchema = lazySchema(() =>
  z.object({
    id: z.string(),
    /** The program only, never its arguments. */
    program: z.string(),
    ended_ms: z.nullable(z.int()),
    removable: z.boolean(),
    reason: z.string(),
  }),
);

export const TargetEntrySchema = lazySchema(() =>
  z.object({
    path: z.string(),
    checkout: z.string(),
    bytes: z.number(),
    partial: z.boolean(),
    removable: z.boolean(),
    reason: z.string(),
  }),
);

export const DoctorReportSchema = lazySchema(() =>
  z.object({
    version: z.literal(1),
    host: z.string(),
    now_ms: z.int(),
    repositories: z.array(RepositoryEntrySchema),
    worktrees: z.array(WorktreeEntrySchema),
    branches: z.array(BranchEntrySchema),
    /** Herdr workspaces and panes under the pane rule; null when this host has no Herdr or it cannot be read. */
    workspaces: z.nullable(z.array(WorkspaceEntrySchema)),
    panes: z.nullable(z.array(PaneEntrySchema)),
    landed_dirty: z.array(LandedDirtySchema),
    unlinked: z.array(z.object(unlinkedFields())),
    jobs: z.array(JobEntrySchema),
    targets: z.array(TargetEntrySchema),
    disk: z.nullable(
      z.object({
        used_percent: z.number(),
        largest: z.array(z.object({ path: z.string(), bytes: z.number(), partial: z.boolean() })),
      }),
    ),
    processes: z.object({
      hot: z.array(z.object({ pid: z.int(), name: z.string(), cpu_percent: z.number() })),
      error: z.nullable(z.string()),
    }),
    warnings: z.array(z.string()),
    /** How this host has dogsled installed (doctor only; absent from older peers). */
    install: z.optional(
      z.array(
        z.object({
          check: z.enum(['service', 'path', 'claude', 'codex', 'codex-hooks', 'herdr', 'warm']),
          state: z.enum(['ok', 'fix', 'skip']),
          detail: z.string(),
          fix: z.nullable(z.string()),
        }),
      ),
    ),
  }),
);

const EntryKind = lazySchema(() =>
  z.enum([
    'worktree',
    'worktree-record',
    'branch',
    'repository-record',
    'job',
    'target',
    'workspace',
    'pane',
  ]),
);

export const PruneReportSchema = lazySchema(() => {
  const fields = pruneEntryFields(EntryKind);
  return z.object({
    results: z.array(z.object(fields.result)),
    skipped: z.array(z.object(fields.skip)),
    failures: z.array(z.object(fields.failure)),
  });
});

export type DoctorReport = z.infer<typeof DoctorReportSchema>;
export type WorktreeEntry = z.infer<typeof WorktreeEntrySchema>;
export type BranchEntry = z.infer<typeof BranchEntrySchema>;
export type RepositoryEntry = z.infer<typeof RepositoryEntrySchema>;
export type JobEntry = z.infer<typeof JobEntrySchema>;
export type TargetEntry = z.infer<typeof TargetEntrySchema>;
export type PruneReport = z.infer<typeof PruneReportSchema>;
export type PruneResult = PruneReport['results'][number];
export type PruneSkip = PruneReport['skipped'][number];
export type PruneFailure = PruneReport['failures'][number];
