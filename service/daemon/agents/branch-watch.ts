// The service's observations of its children's branches for TO LAND (spec, "Items and closing"):
// every kept agent item with a branch on this host, whether the branch still holds commits the
// default branch lacks (`<child>: branch <b> +N to land`), and whether its worktree, while it
// exists, is dirty. "Integration or branch deletion removes the row": a branch the loss rule proves
// integrated into the default branch (merged, squashed, cherry-picked) has nothing to land, and
// neither has a deleted one (`close` deletes a branch only when the default branch or a freshly
// fetched remote holds its commits). A pushed branch that still exists here is not landed: its
// commits are counted against the default branch alone. Git is read without a fetch.

import { surveyRepository } from '../../cleanup/survey.js';
import type { Item } from '../../core/agents/item-types.js';
import { type CommitsVerdict, inDefaultBranch } from '../../core/cleanup/loss-types.js';
import { messageOf } from '../../core/common/errors.js';
import type { BranchObservationRecord } from '../../core/inbox/outbox-types.js';
import { readDirty } from '../../git/checkout-facts.js';
import { pathPresent } from '../../git/git-dir.js';
import { readGraph } from '../../git/graph.js';
import type { DefaultBranch } from '../../git/refs.js';
import { LOCAL_HOST } from '../../hosts/local-facts.js';
import { readBranchObservations, writeBranchObservations } from '../../state/records/branch-observations.js';
import { readItems } from '../../state/records/queue-items.js';
import type { WorkerIO } from '../worker-io.js';

/** Branches are looked at again at most this often (and after every finished child). */
export const BRANCH_WATCH_MS = 5_000;

export async function observeBranches(io: WorkerIO, warn: (line: string) => void): Promise<void> {
  const items = (await readItems(io)).items.filter(
    (item): item is Item & { branch: string; repository: string } =>
      item.kind === 'agent' && item.host === LOCAL_HOST.id && !!item.branch && !!item.repository,
  );
  const before = await readBranchObservations(io).catch(() => []);
  if (items.length === 0 && before.length === 0) return;
  const seen: BranchObservationRecord[] = [];
  for (const item of items) {
    try {
      seen.push(await observe(io, item));
    } catch (error) {
      warn(`dogsled serve: branch ${item.branch} of ${item.name ?? item.id}: ${messageOf(error)}`);
      const kept = before.find((entry) => entry.item === item.id);
      if (kept) seen.push(kept);
    }
  }
  const shape = (list: readonly BranchObservationRecord[]) =>
    JSON.stringify(list.map(({ observed_ms: _at, ...rest }) => rest));
  if (shape(seen) === shape(before)) return;
  await writeBranchObservations(io, seen);
}

async function observe(
  io: WorkerIO,
  item: Item & { branch: string; repository: string },
): Promise<BranchObservationRecord> {
  const base = {
    item: item.id,
    child: item.name ?? item.id,
    host: item.host,
    repository: item.repository,
    branch: item.branch,
    observed_ms: io.now(),
  };
  // The repository itself is gone: so is the branch, and nothing is left to land.
  if (!pathPresent(item.repository)) return { ...base, ahead: 0, dirty: false, landed: true };
  const survey = await surveyRepository(item.repository, {
    fetch: 'skip',
    callerCwd: null,
    registered: [],
    only: { branch: item.branch },
    content: false,
    env: io.env,
  });
  const branch = survey.branches.find((entry) => entry.facts.name === item.branch);
  // Deleted (by `close`, which deletes only what is held elsewhere, or by the owner): the row goes.
  if (branch === undefined) return { ...base, ahead: 0, dirty: false, landed: true };
  const ahead = await aheadOf(
    item.repository,
    branch.facts.sha,
    branch.facts.commits,
    survey.defaultBranch,
    io,
  );
  const worktree = branch.facts.worktree;
  const dirty =
    worktree !== null && item.closed_ms === null ? await readDirty(worktree, { env: io.env }) : false;
  return { ...base, ahead, dirty, landed: ahead === 0 && isLanded(branch.facts.commits) };
}

function isLanded(commits: CommitsVerdict): boolean {
  return commits.landed && inDefaultBranch(commits.proof);
}

/** Commits to land: none once integrated; a pushed tip's are counted against the default branch alone. */
async function aheadOf(
  repository: string,
  tip: string,
  commits: CommitsVerdict,
  defaults: DefaultBranch,
  io: WorkerIO,
): Promise<number> {
  if (isLanded(commits)) return 0;
  if (!commits.landed) return commits.unique;
  const graph = await readGraph(repository, [tip], defaults.refs, { env: io.env });
  // Not in the default branch, so at least its tip is missing there.
  return Math.max(1, graph.order.length);
}
