// A child agent placed on a peer: the peer launches it (`host agent`, the request as JSON on stdin:
// every name, path and the task are data) with its task file, contract, launch record and pane
// there, its checkout verified against this caller's origin or cloned from it first; this host, the
// owner's, keeps an item that names the peer. The child runs there with its caller's PATH, its
// directories under the caller's home mapped to the peer's (agents/peer-caller-env.ts), and the
// peer refuses a harness that PATH does not find before it makes anything. The launch counts as
// setup (up to 10 minutes).

import { callerWorkspaceName } from '../agents/caller-workspace.js';
import type { AgentLaunched } from '../agents/launch-agent.js';
import { callerEnvForPeer } from '../agents/peer-caller-env.js';
import type { Item } from '../core/agents/item-types.js';
import { DogsledError } from '../core/common/errors.js';
import type { AgentRequest } from '../core/placement/queue-types.js';
import type { AgentLaunchRequest } from '../host-verbs/agent-verbs.js';
import type { PeerHost } from '../hosts/fleet.js';
import { peerCall } from '../hosts/peer-verb.js';
import type { HostIO } from '../state/io.js';
import { hostIdentity } from '../state/records/identity.js';
import { appendItem } from '../state/records/queue-items.js';
import { LaunchRecordSchema } from '../state/schemas/launch-schemas.js';
import { ItemSchema } from '../state/schemas/queue-items-schemas.js';
import { openTerminal } from '../terminal/open.js';
import type { Deadline } from '../time/deadline.js';
import { workPlaceOf } from '../worktrees/peer-checkout.js';

export interface RemoteAgentLaunch {
  itemId: string;
  request: AgentRequest;
  task: string;
  owner: string | null;
  ticket: string | null;
  reservation: string | null;
  /**
   * The child's environment from its caller (core/agent-env.ts: its PATH), which travels to the
   * peer; undefined or null (a ticket from an older dogsled) leaves the pane's to the peer's Herdr.
   */
  env?: Record<string, string> | null;
}

export async function launchRemoteAgent(
  io: HostIO,
  peer: PeerHost,
  spec: RemoteAgentLaunch,
  deadline: Deadline,
): Promise<AgentLaunched> {
  const place = await deadline.step('reading the checkout', 'routine', (signal) =>
    workPlaceOf({ ...io, signal }, spec.request.cwd),
  );
  // The caller's workspace is known here by id; the peer finds (or makes) the one with its name. A
  // Herdr here that cannot say leaves the peer's own placement rules to choose.
  const workspaceName = await deadline
    .step("finding the caller's workspace", 'routine', async () => {
      if (spec.owner === null) return null;
      const port = await openTerminal({ env: io.env, home: io.home, commandName: 'agent', warn: io.warn });
      return callerWorkspaceName(port, spec.owner);
    })
    .catch(() => null);
  const allowed = deadline.allowance('setup');
  const launch: AgentLaunchRequest = {
    item: spec.itemId,
    request: { ...spec.request, caller_workspace: null },
    task: spec.task,
    place,
    caller_workspace_name: workspaceName,
    owner: spec.owner,
    // The child's messages wait on the peer under this host's identity; the service here takes them.
    owner_host: await hostIdentity(io),
    ticket: spec.ticket,
    reservation: spec.reservation,
    max_ms: Math.max(1, allowed),
    ...(spec.env ? { caller_env: callerEnvForPeer(spec.env, io.home) } : {}),
  };
  const value = (await deadline.step(
    `starting agent ${spec.request.name} on ${peer.label}`,
    'setup',
    (signal) => peerCall(io, peer, ['agent'], { input: JSON.stringify(launch), signal, timeoutMs: allowed }),
  )) as { record?: unknown; item?: unknown; worktree?: unknown };
  const record = LaunchRecordSchema.safeParse(value?.record);
  const theirs = ItemSchema.safeParse(value?.item);
  if (!record.success || !theirs.success) {
    throw new DogsledError(`${peer.label}: host agent answered something that is not a started agent`);
  }
  // The owner's item, on the owner's host: it names the peer, whose own item tracks the pane there.
  const item: Item = { ...theirs.data, host: peer.id, owner: spec.owner, owner_host: null, owner_pane: null };
  await appendItem(io, item);
  const worktree = (value.worktree ?? null) as AgentLaunched['worktree'];
  return { record: { ...record.data, host: peer.id, owner: spec.owner }, item, worktree };
}
