// `dogsled prune` for people: the plan before the question, then one line per removal, skip and
// failure as they happen. Paths come from the filesystem and Git: escapes are stripped (fit).

import type { PruneFailure, PruneResult, PruneSkip } from '../../service/actions/prune-action.js';
import type { PlanEntry } from '../../service/core/cleanup/prune-plan.js';
import { formatBytes } from '../../service/core/common/units.js';
import { plainLine } from '../../service/core/text/clean.js';
import type { Paint } from './color.js';
import { checkedOut, shortPath, verdictRow } from './doctor-human.js';

function planName(entry: PlanEntry): string {
  switch (entry.kind) {
    case 'worktree':
      return `worktree ${shortPath(entry.path, entry.repository)}${checkedOut(entry.branch, entry.head)}`;
    case 'worktree-record':
      return `worktree record ${entry.path}`;
    case 'branch':
      return `branch ${entry.branch} in ${entry.repository}`;
    case 'repository-record':
      return `repository record ${entry.path}`;
    case 'job':
      return `job ${entry.id}`;
    case 'target':
      return `build output ${entry.path} (${formatBytes(entry.bytes)})`;
    case 'pane':
      return `pane ${entry.pane} (${entry.program ?? 'unknown program'}${entry.cwd ? ` in ${entry.cwd}` : ''})`;
    case 'workspace': {
      const count = `${entry.panes.length} pane${entry.panes.length === 1 ? '' : 's'}`;
      return `workspace ${entry.workspace} ${entry.label} (${count}${entry.cwd ? ` in ${entry.cwd}` : ''})`;
    }
  }
}

export function renderPlan(plan: readonly PlanEntry[], paint: Paint): string[] {
  if (plan.length === 0) return ['nothing to prune'];
  const lines = [paint.bold(`prune plan: ${plan.length} entr${plan.length === 1 ? 'y' : 'ies'}`)];
  for (const entry of plan) lines.push(...verdictRow('remove', planName(entry), entry.reason, paint));
  return lines;
}

/** What a result, skip or failure is about, in words: `worktree record /p`, `branch b in /repo`. */
function subject(entry: { kind: string; path: string; branch: string | null }): string {
  switch (entry.kind) {
    case 'branch':
      return `branch ${entry.branch} in ${entry.path}`;
    case 'worktree-record':
      return `worktree record ${entry.path}`;
    case 'repository-record':
      return `repository record ${entry.path}`;
    case 'target':
      return `build output ${entry.path}`;
    default:
      return `${entry.kind} ${entry.path}`;
  }
}

/**
 * One line for a result. `skip`: the skip reported with it (a branch a new commit kept), whose line
 * says why, so the result does not say it again.
 */
export function renderResult(result: PruneResult, paint: Paint, skip?: PruneSkip): string {
  if (result.kind === 'pane' || result.kind === 'workspace') {
    const what = `${result.kind} ${result.path}`;
    if (result.already_removed) return paint.green(plainLine(`closed ${what} (already closed)`));
    const panes = result.kind === 'workspace' ? ` (panes ${result.panes.join(', ')})` : '';
    return paint.green(plainLine(`closed ${what}${panes}`));
  }
  const detail = result.kind === 'worktree' && skip === undefined ? result.detail : '';
  const extra = [
    result.already_removed ? 'already removed' : '',
    result.kind === 'worktree' && result.branch_deleted ? `branch ${result.branch} deleted` : '',
    result.panes.length > 0 ? `closed ${result.panes.join(', ')}` : '',
    detail,
  ].filter((part) => part !== '');
  return paint.green(
    plainLine(`removed ${subject(result)}${extra.length > 0 ? ` (${extra.join('; ')})` : ''}`),
  );
}

export function renderSkip(skip: PruneSkip, paint: Paint): string {
  return paint.yellow(plainLine(`skipped: ${subject(skip)}: ${skip.reason}`));
}

/** A failure in full, never cut: a teardown's last lines of output follow the first line. */
export function renderFailure(failure: PruneFailure, paint: Paint): string {
  const [first, ...rest] = failure.error.split('\n');
  return [paint.red(plainLine(`failed: ${subject(failure)}: ${first ?? ''}`)), ...rest.map(plainLine)].join(
    '\n',
  );
}
