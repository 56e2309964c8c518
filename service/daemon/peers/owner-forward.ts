// The peer side of a child whose owner is on another host: after the finish worker's pass, each such
// child's close (done, with its reply, or pane gone) and each new observation of its branch is
// posted to this host's outbox for the owner's service to take (inbox/outbox.ts). The item remembers what it forwarded
// (owner_told_ms, branch_seen), so a restart repeats nothing the owner has not already applied.

import type { Item } from '../../core/agents/item-types.js';
import type { ParentLink } from '../../core/agents/watchdog-types.js';
import { pendingRecord } from '../../core/inbox/inbox.js';
import { finishedText } from '../../core/inbox/inbox-text.js';
import type { BranchSeen } from '../../core/inbox/outbox-types.js';
import { ownerElsewhere, type Posted, postForOwner } from '../../inbox/outbox.js';
import { newId } from '../../state/engine/ids.js';
import { readBranchObservations } from '../../state/records/branch-observations.js';
import { readParents, unlinkChildren } from '../../state/records/parents.js';
import { readItems, updateItems } from '../../state/records/queue-items.js';
import type { WorkerIO } from '../worker-io.js';

function sameBranch(a: BranchSeen | null | undefined, b: BranchSeen): boolean {
  return a != null && a.ahead === b.ahead && a.dirty === b.dirty && a.landed === b.landed;
}

export async function forwardToOwners(io: WorkerIO): Promise<void> {
  await forward(io);
  await dropFinishedLinks(io);
}

async function forward(io: WorkerIO): Promise<void> {
  const items = (await readItems(io)).items.filter(ownerElsewhere) as Item[];
  if (items.length === 0) return;
  const observed = new Map((await readBranchObservations(io).catch(() => [])).map((b) => [b.item, b]));
  for (const item of items) {
    const seen = observed.get(item.id);
    if (seen !== undefined) {
      const branch = {
        ahead: seen.ahead,
        dirty: seen.dirty,
        landed: seen.landed,
        observed_ms: seen.observed_ms,
      };
      if (!sameBranch(item.branch_seen, branch)) {
        await postForOwner(io, item, { ref: `branch:${item.id}:${branch.observed_ms}`, branch });
        await change(io, item.id, (current) => ({ ...current, branch_seen: branch }));
      }
    }
    if (item.closed_ms !== null && item.owner_told_ms == null) {
      const closed = { reason: item.close_reason ?? 'closed', reply: item.reply ?? null };
      const posted: Posted[] = [];
      // A child that called done: its owner hears its reply, as an owner here would (finish.ts).
      if (item.close_reason === 'done' && item.owner_pane) {
        const record = pendingRecord(
          {
            id: newId('m'),
            kind: 'reply',
            sender: { pane: item.pane, terminal: item.terminal_id, host: item.host, name: item.name ?? null },
            text: finishedText(item.name ?? item.id, item.reply ?? null),
            ref: `reply:${item.id}`,
          },
          io.now(),
        );
        posted.push({ ref: `reply:${item.id}`, message: { owner_pane: item.owner_pane, record } });
      }
      posted.push({ ref: `closed:${item.id}`, closed });
      await postForOwner(io, item, posted);
      await change(io, item.id, (current) => ({ ...current, owner_told_ms: io.now() }));
    }
  }
}

/**
 * parents.json keeps a child while its owner may still hear of it: the link goes once the child's
 * close was posted for its owner, or when its item is gone from items.json. Read without the lock
 * first, so a host without such children takes no lock each pass.
 */
async function dropFinishedLinks(io: WorkerIO): Promise<void> {
  const parents = await readParents(io);
  if (parents === undefined || Object.keys(parents.children).length === 0) return;
  const items = new Map((await readItems(io)).items.map((item) => [item.id, item]));
  const over = (link: ParentLink) => {
    // A link that names no item is not one this host wrote: it stays.
    if (link.item == null) return false;
    const item = items.get(link.item);
    return item === undefined || (item.closed_ms !== null && item.owner_told_ms != null);
  };
  if (!Object.values(parents.children).some(over)) return;
  await unlinkChildren(io, (_terminal, link) => over(link));
}

async function change(io: WorkerIO, id: string, fn: (item: Item) => Item): Promise<void> {
  await updateItems(io, (file) => {
    const index = file.items.findIndex((item) => item.id === id);
    const item = file.items[index];
    if (item === undefined) return { result: undefined };
    const list = file.items.slice();
    list[index] = fn(item);
    return { result: undefined, next: { ...file, items: list } };
  });
}
