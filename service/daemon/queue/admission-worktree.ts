// The worktree of an admitted `place --branch` ticket whose caller did not wait (spec, "Repository
// configuration" steps 1-5, as `place --branch` runs them itself when it is placed at once): made or
// reused under the setup cap, the same steps as the waiting caller's. What it returns goes on the
// admitted ticket, and from there (path and pane) into the owner's admission notice.

import { DogsledError, messageOf } from '../../core/common/errors.js';
import { SETUP_CAP_MS } from '../../core/placement/budget.js';
import type { PlaceBranch, PlacedWorktree, Ticket } from '../../core/placement/queue-types.js';
import { Deadline } from '../../time/deadline.js';
import { ensureBranchWorktree } from '../../worktrees/branch-worktree.js';
import type { WorkerIO } from '../worker-io.js';

/** The worktree, or why it could not be made (its own steps undid what they made). */
export async function placeWorktree(
  deps: WorkerIO,
  ticket: Ticket,
  place: PlaceBranch,
): Promise<{ ok: true; worktree: PlacedWorktree } | { ok: false; error: string }> {
  const deadline = new Deadline(deps.launchCapMs ?? SETUP_CAP_MS);
  const request = { repo: place.repo, branch: place.branch, base: place.base ?? undefined, command: 'place' };
  try {
    const made = await deadline.step(`the worktree of ticket ${ticket.id}`, 'setup', (signal) =>
      ensureBranchWorktree(request, { ...deps, deadline, signal }),
    );
    return {
      ok: true,
      worktree: { path: made.path, branch: made.branch, pane_id: made.pane, workspace: made.workspace },
    };
  } catch (error) {
    if (!(error instanceof DogsledError))
      deps.warn(`dogsled serve: admission of ${ticket.id}: ${String(error)}`);
    // The reservation stays, as when a waiting caller's setup fails.
    const kept = ticket.reservation === null ? '' : `; reservation ${ticket.reservation} stays until its TTL`;
    return { ok: false, error: `${messageOf(error)}${kept}` };
  }
}
