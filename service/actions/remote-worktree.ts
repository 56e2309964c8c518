// `--branch` for `place` and `run` placed on a peer: the branch's worktree is made or reused in the
// peer's checkout of the caller's repository (`host worktree`, the request as JSON on stdin), which
// the peer verifies against the caller's origin or clones from it first. Setup counts as setup.

import * as z from 'zod/mini';
import { DogsledError } from '../core/common/errors.js';
import type { WorktreeRequest } from '../host-verbs/agent-verbs.js';
import type { PeerHost } from '../hosts/fleet.js';
import { peerCall } from '../hosts/peer-verb.js';
import { lazySchema } from '../state/engine/lazy-schema.js';
import type { HostIO } from '../state/io.js';
import type { Deadline } from '../time/deadline.js';
import type { BranchWorktree } from '../worktrees/branch-worktree.js';
import { workPlaceOf } from '../worktrees/peer-checkout.js';

const BranchWorktreeSchema = lazySchema(() =>
  z.looseObject({
    path: z.string(),
    branch: z.string(),
    repository: z.string(),
    created: z.boolean(),
    workspace: z.string(),
    pane: z.string(),
    anchor: z.nullable(z.string()),
  }),
);

export async function remoteWorktree(
  io: HostIO,
  peer: PeerHost,
  ask: { cwd: string; branch: string; base: string | null; command: WorktreeRequest['command'] },
  deadline: Deadline,
): Promise<BranchWorktree> {
  const place = await deadline.step('reading the checkout', 'routine', (signal) =>
    workPlaceOf({ ...io, signal }, ask.cwd),
  );
  const allowed = deadline.allowance('setup');
  const request: WorktreeRequest = {
    place,
    branch: ask.branch,
    base: ask.base,
    command: ask.command,
    max_ms: Math.max(1, allowed),
  };
  const value = await deadline.step(`the worktree of ${ask.branch} on ${peer.label}`, 'setup', (signal) =>
    peerCall(io, peer, ['worktree'], { input: JSON.stringify(request), signal, timeoutMs: allowed }),
  );
  const parsed = BranchWorktreeSchema.safeParse(value);
  if (!parsed.success)
    throw new DogsledError(`${peer.label}: host worktree answered something that is not a worktree`);
  return parsed.data;
}
