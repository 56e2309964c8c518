// The sweep's rules (spec, "The sweep in serve"): a pass runs only when a request is owed; it
// applies the doctor plan in sweep scope (panes, workspaces, worktrees, branches, stale records;
// never jobs or build output, never the service's own pane, workspace or checkout); seven days of
// passes are kept; and its cleanup findings (failures, unlinked holds, landed-dirty checkouts)
// reach only the agent that created the work, once per distinct set. Pure.

import type { PlanEntry } from './prune-plan.js';
import type { SweepPass, SweepRequest } from './sweep-types.js';

export const SWEEP_KINDS: ReadonlySet<PlanEntry['kind']> = new Set([
  'worktree',
  'worktree-record',
  'branch',
  'repository-record',
  'pane',
  'workspace',
]);
/** sweeps.jsonl keeps a week of passes. */
export const SWEEP_HISTORY_MS = 7 * 24 * 3_600_000;

export function requestOwed(request: SweepRequest | undefined): request is SweepRequest {
  return request !== undefined && (request.handled_ms === null || request.requested_ms > request.handled_ms);
}

/** The service itself: the pane it runs in and its workspace (null outside Herdr), and its directory. */
export interface SweepSelf {
  pane: string | null;
  workspace: string | null;
  cwd: string;
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** The plan entries a sweep applies, in the plan's order. */
export function sweepScope(plan: readonly PlanEntry[], self: SweepSelf): PlanEntry[] {
  return plan.filter((entry) => {
    if (!SWEEP_KINDS.has(entry.kind)) return false;
    if (entry.kind === 'pane') return entry.pane !== self.pane && entry.workspace !== self.workspace;
    if (entry.kind === 'workspace') {
      return entry.workspace !== self.workspace && !entry.panes.some((p) => p.pane === self.pane);
    }
    if (entry.kind === 'worktree') return !inside(self.cwd, entry.path);
    return true;
  });
}

/** What a pass did to entries, in sweep.json's shapes. */
export type PassEntries = Pick<SweepPass, 'results' | 'skipped' | 'failures'>;

/** A completed pass with these entries and no findings yet; it finishes no earlier than it started. */
export function completedPass(
  when: { started_ms: number; now: number },
  cause: Pick<SweepPass, 'request_ms' | 'trigger' | 'error'>,
  entries: PassEntries,
): SweepPass {
  const finished_ms = Math.max(when.started_ms, when.now);
  return {
    version: 1,
    ts_ms: finished_ms,
    started_ms: when.started_ms,
    finished_ms,
    ...cause,
    results: entries.results,
    skipped: entries.skipped,
    failures: entries.failures,
    warnings: [],
    landed_dirty: [],
    unlinked: [],
  };
}

/**
 * Whether a pass becomes sweep.json, the record status, prompt context and the Stop gate read: a
 * requested pass does (older files carry no trigger: they were requested); the orphan check's own
 * passes go to the history only, so they never replace the record of a pass someone asked for.
 */
export function isLatestRecord(pass: Pick<SweepPass, 'trigger'>): boolean {
  return pass.trigger !== 'orphans';
}

/** The history after appending a pass: entries older than seven days go. */
export function keptHistory<T extends { ts_ms: number }>(entries: readonly T[], now: number): T[] {
  return entries.filter((entry) => now - entry.ts_ms <= SWEEP_HISTORY_MS);
}

export interface SweepCounts {
  removed: number;
  skipped: number;
  failed: number;
  warnings: number;
  held: number;
}

/** The fields of a pass its counts come from: all a lean reader of sweep.json needs to check. */
export type SweepCounted = Pick<
  SweepPass,
  'results' | 'skipped' | 'failures' | 'error' | 'warnings' | 'unlinked' | 'landed_dirty' | 'orphans'
>;

export function sweepCounts(pass: SweepCounted): SweepCounts {
  return {
    removed: pass.results.length,
    skipped: pass.skipped.length,
    failed: pass.failures.length + (pass.error === null ? 0 : 1),
    warnings: pass.warnings.length,
    held: pass.unlinked.length + pass.landed_dirty.length + (pass.orphans?.length ?? 0),
  };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `2 removed, 1 failed, 1 warning, 1 held, 3 skipped`: the non-zero counts (or `nothing to do`). */
export function sweepCountsText(counts: SweepCounts): string {
  const parts = [
    counts.removed > 0 ? `${counts.removed} removed` : '',
    counts.failed > 0 ? `${counts.failed} failed` : '',
    counts.warnings > 0 ? plural(counts.warnings, 'warning') : '',
    counts.held > 0 ? `${counts.held} held` : '',
    counts.skipped > 0 ? `${counts.skipped} skipped` : '',
  ].filter(Boolean);
  return parts.length === 0 ? 'nothing to do' : parts.join(', ');
}

/** One finding of a pass that an owner may have to act on. */
export interface CleanupFinding {
  /** Stable identity for the once-per-set history. */
  key: string;
  kind: 'failure' | 'unlinked' | 'landed_dirty';
  /**
   * What the finding is about, which decides who created it: a checkout (worktree, landed-dirty,
   * unlinked), a pane, a branch of a repository, or something of the host's own (no creator).
   */
  subject: 'checkout' | 'pane' | 'branch' | 'host';
  /** The worktree or checkout path, a pane id for a pane failure, the repository for a branch. */
  path: string;
  /** The branch of a branch failure, else null. */
  branch: string | null;
  text: string;
}

/** Which failures are about a checkout, a pane or a branch; any other kind is the host's own. */
const FAILURE_SUBJECTS: Readonly<Record<string, CleanupFinding['subject']>> = {
  worktree: 'checkout',
  pane: 'pane',
  branch: 'branch',
};

export function cleanupFindings(pass: SweepPass): CleanupFinding[] {
  const findings: CleanupFinding[] = [];
  for (const failure of pass.failures) {
    findings.push({
      key: `failure:${failure.kind}:${failure.path}${failure.kind === 'branch' ? `:${failure.branch}` : ''}`,
      kind: 'failure',
      subject: FAILURE_SUBJECTS[failure.kind] ?? 'host',
      path: failure.path,
      branch: failure.branch,
      text: `${failure.kind} ${failure.path}${failure.kind === 'branch' && failure.branch ? ` (${failure.branch})` : ''}: removal failed: ${failure.error}`,
    });
  }
  for (const hold of pass.unlinked) {
    findings.push({
      key: `unlinked:${hold.path}`,
      kind: 'unlinked',
      subject: 'checkout',
      path: hold.path,
      branch: null,
      text: hold.reason,
    });
  }
  for (const dirty of pass.landed_dirty) {
    const shown = dirty.paths.slice(0, 10).join(', ');
    findings.push({
      key: `landed_dirty:${dirty.checkout}:${dirty.dirty}`,
      kind: 'landed_dirty',
      subject: 'checkout',
      path: dirty.checkout,
      branch: null,
      text: `${dirty.checkout} (${dirty.ref}) is landed but has ${plural(dirty.dirty, 'uncommitted path')}: ${shown}`,
    });
  }
  return findings;
}

/**
 * What an owner created on this host (the spec's ownership rule): its open items' panes, where
 * those panes work, and what its launches made or started a child in.
 */
export interface CreatedWork {
  /** Its open children's panes: a pane that failed to close is theirs. */
  panes: ReadonlySet<string>;
  /**
   * Where it works through others: its open children's working directories and recorded
   * worktrees, and the worktree or directory each of its launches made or started a child in.
   */
  paths: readonly string[];
  /** Branches its launches made (`--branch`), with their repository's main checkout. */
  branches: ReadonlyArray<{ repository: string; branch: string }>;
  /**
   * The checkouts this host knows (registered worktrees): a directory belongs to the deepest
   * checkout that holds it, so a worktree inside a main checkout is not the main checkout's.
   */
  checkouts: readonly string[];
}

/** The checkout `path` is in: the deepest of `roots` that holds it, else null. */
function checkoutOf(path: string, roots: readonly string[]): string | null {
  let best: string | null = null;
  for (const root of roots) {
    if (inside(path, root) && (best === null || root.length > best.length)) best = root;
  }
  return best;
}

/**
 * The findings whose work this owner created. A directory that merely holds the checkout (a child
 * in a parent directory of someone else's worktree) is not the checkout's creator, and host-level
 * findings (no creator) reach nobody.
 */
export function ownedFindings(findings: readonly CleanupFinding[], created: CreatedWork): CleanupFinding[] {
  const roots = [
    ...created.checkouts,
    ...findings.filter((finding) => finding.subject === 'checkout').map((finding) => finding.path),
  ];
  const homes = new Set(
    created.paths.flatMap((path) => {
      const home = checkoutOf(path, roots);
      return home === null ? [] : [home];
    }),
  );
  return findings.filter((finding) => {
    switch (finding.subject) {
      case 'pane':
        return created.panes.has(finding.path);
      case 'checkout':
        return homes.has(finding.path);
      case 'branch':
        return created.branches.some(
          (made) => made.repository === finding.path && made.branch === finding.branch,
        );
      default:
        return false;
    }
  });
}

export function findingsKey(findings: readonly CleanupFinding[]): string {
  return findings
    .map((finding) => finding.key)
    .sort()
    .join('\n');
}

/** The cleanup reminder: it asks, and forbids the shortcuts that lose work. */
export function cleanupReminder(
  findings: readonly CleanupFinding[],
  clean: (text: string) => string,
): string {
  const lines = [`Cleanup found ${plural(findings.length, 'problem')} in work you created:`];
  for (const finding of findings.slice(0, 10)) lines.push(`- ${clean(finding.text)}`);
  if (findings.length > 10) lines.push(`- and ${findings.length - 10} more (dogsled status)`);
  lines.push(
    'Read the changes there and preserve what is wanted, or get the user’s approval before discarding ' +
      'abandoned work. Never force a worktree removal, run git clean, or rm -rf the checkout.',
  );
  return lines.join('\n');
}

/**
 * sweep-request.json after a request by `by` at `now`: the newest request wins (a time after every
 * earlier one, so the service can tell a request that came during its pass), and one still owed
 * stays owed (handled_ms is kept). Fields a newer dogsled wrote are kept.
 */
export function nextSweepRequest(
  current: SweepRequest | undefined,
  by: string | null,
  now: number,
): SweepRequest {
  const requested_ms = Math.max(now, (current?.requested_ms ?? 0) + 1);
  return { ...(current ?? {}), version: 1, requested_ms, by, handled_ms: current?.handled_ms ?? null };
}
