// Blocked reports (spec, "Inbox": every message to an agent, a blocked report among them, goes through
// its inbox): a child Herdr shows `blocked` (waiting for an answer in its own pane) is reported to its
// owner's inbox once per blocked episode. Read from the host snapshot's agent panes, so nothing asks
// Herdr while nothing new is blocked; the episode is the pane's state_since_ms, which is part of the
// record's ref, so a restarted service posts no episode twice.

import type { Item } from '../../core/agents/item-types.js';
import { messageOf } from '../../core/common/errors.js';
import { pendingRecord } from '../../core/inbox/inbox.js';
import { blockedText } from '../../core/inbox/inbox-text.js';
import { LOCAL_HOST } from '../../hosts/local-facts.js';
import { ownerElsewhere, postForOwner } from '../../inbox/outbox.js';
import { postRecord } from '../../inbox/post.js';
import { openHerdr, paneWhereabouts } from '../../inbox/whereabouts.js';
import { newId } from '../../state/engine/ids.js';
import { readItems } from '../../state/records/queue-items.js';
import { rereadHostSnapshot } from '../publish/snapshot-reread.js';
import type { WorkerIO } from '../worker-io.js';

export class BlockedReports {
  /** Refs handled in this service run (posted, or their owner is gone): not looked at again. */
  private readonly handled = new Set<string>();

  constructor(
    private readonly deps: WorkerIO,
    private readonly warn: (line: string) => void,
  ) {}

  /** One pass; returns the refs of the reports it posted. */
  async pass(): Promise<string[]> {
    const { deps } = this;
    const snapshot = await rereadHostSnapshot(deps).catch(() => undefined);
    const blocked = (snapshot?.probe.agent_panes ?? []).filter((pane) => pane.state === 'blocked');
    if (blocked.length === 0) return [];
    const children = (await readItems(deps)).items.filter(
      (item) =>
        item.kind === 'agent' &&
        item.closed_ms === null &&
        item.host === LOCAL_HOST.id &&
        (item.owner !== null || ownerElsewhere(item)),
    );
    const due = blocked.flatMap((pane) => {
      const item = children.find(
        (entry) =>
          entry.pane === pane.pane || (entry.terminal_id !== null && entry.terminal_id === pane.terminal_id),
      );
      const ref = item === undefined ? '' : `blocked:${item.id}:${pane.state_since_ms}`;
      return item === undefined || this.handled.has(ref) ? [] : [{ item, pane, ref }];
    });
    if (due.length === 0) return [];
    const posted: string[] = [];
    const report = (item: Item, pane: (typeof due)[number]['pane'], ref: string) =>
      pendingRecord(
        {
          id: newId('m'),
          kind: 'blocked',
          sender: { pane: pane.pane, terminal: pane.terminal_id, host: item.host, name: item.name ?? null },
          text: blockedText(item.name ?? item.id, pane.pane, deps.now() - pane.state_since_ms),
          ref,
        },
        deps.now(),
      );
    // An owner on another host: its service takes the report from this host's outbox.
    for (const { item, pane, ref } of due.filter(
      (entry) => ownerElsewhere(entry.item) && !!entry.item.owner_pane,
    )) {
      try {
        const added = await postForOwner(deps, item, {
          ref,
          message: { owner_pane: item.owner_pane as string, record: report(item, pane, ref) },
        });
        this.handled.add(ref);
        if (added) posted.push(ref);
      } catch (error) {
        this.warn(`dogsled serve: blocked report of ${item.name ?? item.id}: ${messageOf(error)}`);
      }
    }
    const here = due.filter((entry) => !ownerElsewhere(entry.item));
    if (here.length === 0) return posted;
    const port = await openHerdr({ env: deps.env, home: deps.home, commandName: 'serve' }).catch(
      () => undefined,
    );
    if (port === undefined) return posted;
    for (const { item, pane, ref } of here) {
      try {
        const owner = await paneWhereabouts(port, item.owner as string);
        this.handled.add(ref);
        if (owner === undefined) continue;
        const record = report(item, pane, ref);
        const post = await postRecord(deps, owner.terminal, owner.pane, record);
        if (post?.added) posted.push(ref);
      } catch (error) {
        this.warn(`dogsled serve: blocked report of ${item.name ?? item.id}: ${messageOf(error)}`);
      }
    }
    return posted;
  }
}
