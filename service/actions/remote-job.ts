// A job placed on a peer: the peer launches it (`host launch`, the request as JSON on stdin: every
// argument is data) in its own pane or headless, with its record and log there; this host, the
// owner's, keeps the item. A directory under the caller's home maps to the same path under the
// peer's home; any other directory is taken as it is and must exist there.

import type { Item } from '../core/agents/item-types.js';
import { DogsledError } from '../core/common/errors.js';
import type { JobRecord } from '../core/jobs/job-types.js';
import type { JobRequest } from '../core/placement/queue-types.js';
import type { LaunchRequest } from '../host-verbs/job-verbs.js';
import type { PeerHost } from '../hosts/fleet.js';
import { peerCall } from '../hosts/peer-verb.js';
import type { HostIO } from '../state/io.js';
import { appendItem } from '../state/records/queue-items.js';
import { JobRecordSchema } from '../state/schemas/host-schemas.js';
import { ItemSchema } from '../state/schemas/queue-items-schemas.js';
import type { Transport } from '../transport/types.js';
import { homeRelative } from '../worktrees/peer-checkout.js';

export interface RemoteLaunch {
  jobId: string;
  itemId: string;
  request: JobRequest;
  owner: string | null;
  ticket: string | null;
  reservation: string;
}

export async function launchRemoteJob(
  io: HostIO,
  peer: PeerHost,
  spec: RemoteLaunch,
  options: { transport?: Transport; signal?: AbortSignal } = {},
): Promise<{ job: JobRecord; item: Item }> {
  const launch: LaunchRequest = {
    job: spec.jobId,
    item: spec.itemId,
    request: spec.request,
    home_relative: homeRelative(spec.request.cwd, io.home),
    owner: spec.owner,
    ticket: spec.ticket,
    reservation: spec.reservation,
  };
  const value = (await peerCall(io, peer, ['launch'], {
    input: JSON.stringify(launch),
    ...options,
  })) as { job?: unknown; item?: unknown };
  const job = JobRecordSchema.safeParse(value?.job);
  const theirs = ItemSchema.safeParse(value?.item);
  if (!job.success || !theirs.success) {
    throw new DogsledError(`${peer.label}: host launch answered something that is not a launched job`);
  }
  // The owner's item, on the owner's host: it names the peer, whose own item tracks the pane there.
  const item: Item = { ...theirs.data, host: peer.id };
  await appendItem(io, item);
  return { job: { ...job.data, host: peer.id }, item };
}
