// The service's finished-children worker (spec, "Items and closing"): a child that called `dogsled
// done` (a mark in done.json) is closed at the first idle or done observation after its mark, never
// while it is working, blocked or unknown. Its final reply is captured from its transcript (else the
// pane's last lines) onto its item first, then the pane and agent worktree close and the branch
// stays (agents/close-child.ts), then the item closes as `done`. A mark whose terminal changed or
// whose agent session is another one is not this child's any more: it is dropped, nothing closes.
// Each pass also keeps branches.json current (branch-watch.ts), for the board's TO LAND rows,
// reports children newly blocked to their owners (blocked-reports.ts), and posts the replies, closes
// and branches of children whose owner is on another host to the outbox (owner-forward.ts).

import { closeItemsOf } from '../../actions/close.js';
import { closeChild } from '../../agents/close-child.js';
import { childEnd } from '../../agents/final-reply.js';
import { cancellingWork, turnEnded } from '../../core/agents/done-rule.js';
import type { Item } from '../../core/agents/item-types.js';
import { messageOf } from '../../core/common/errors.js';
import { HOST_IDENTITY } from '../../core/fleet/fleet-types.js';
import { pendingRecord } from '../../core/inbox/inbox.js';
import { finishedText, senderFinishedText } from '../../core/inbox/inbox-text.js';
import type { InboxRecord, InboxSender } from '../../core/inbox/inbox-types.js';
import { priceTable } from '../../core/receipts/prices.js';
import { childReceipt } from '../../core/receipts/receipt.js';
import type { ModelUsage } from '../../core/receipts/usage.js';
import { squeezedLine } from '../../core/text/clean.js';
import { LOCAL_HOST } from '../../hosts/local-facts.js';
import { postForHost } from '../../inbox/outbox.js';
import { postRecord } from '../../inbox/post.js';
import { readAllRecords } from '../../inbox/settled.js';
import { paneWhereabouts } from '../../inbox/whereabouts.js';
import { newId } from '../../state/engine/ids.js';
import { type DoneMark, readDoneMarks, updateDoneMarks } from '../../state/records/done-marks.js';
import { updateItems } from '../../state/records/queue-items.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Listing } from '../../terminal/port-records.js';
import { forwardToOwners } from '../peers/owner-forward.js';
import type { WorkerIO } from '../worker-io.js';
import { BlockedReports } from './blocked-reports.js';
import { BRANCH_WATCH_MS, observeBranches } from './branch-watch.js';

/** Closed marks are kept this long for inspection, like closed items. */
const MARK_RETENTION_MS = 24 * 3_600_000;
const LISTING_TIMEOUT_MS = 10_000;

export class FinishWorker {
  private readonly warned = new Set<string>();
  private watchedMs = 0;
  private readonly blocked: BlockedReports;

  constructor(private readonly deps: WorkerIO) {
    this.blocked = new BlockedReports(deps, (line) => this.warnOnce(line));
  }

  /** One pass; returns the marks it closed. Branch observations follow (TO LAND). */
  async pass(): Promise<DoneMark[]> {
    const closed = await this.finishAll();
    await this.blocked
      .pass()
      .catch((error: unknown) =>
        this.warnOnce(`dogsled serve: blocked reports: ${squeezedLine(messageOf(error))}`),
      );
    const now = this.deps.now();
    if (closed.length > 0 || now - this.watchedMs >= BRANCH_WATCH_MS) await this.watchBranches();
    await forwardToOwners(this.deps).catch((error: unknown) =>
      this.warnOnce(`dogsled serve: outbox: ${squeezedLine(messageOf(error))}`),
    );
    return closed;
  }

  private async finishAll(): Promise<DoneMark[]> {
    const { deps } = this;
    const marks = (await readDoneMarks(deps)).marks;
    const live = marks.filter((mark) => mark.state !== 'closed');
    await this.expire(marks);
    if (live.length === 0) return [];
    const { openTerminal } = await import('../../terminal/open.js');
    const port = await openTerminal({
      env: deps.env,
      home: deps.home,
      commandName: 'serve',
      warn: (l) => this.warnOnce(l),
    });
    if (port.kind === 'headless') return [];
    let listing: Listing;
    try {
      listing = await port.listAll({ signal: AbortSignal.timeout(LISTING_TIMEOUT_MS) });
    } catch {
      return [];
    }
    const closed: DoneMark[] = [];
    for (const mark of live) {
      const done = await this.finish(port, listing, mark).catch(async (error: unknown) => {
        const why = squeezedLine(messageOf(error), 300);
        this.warnOnce(`dogsled serve: done ${mark.id}: ${why}`);
        await this.change(mark.id, (m) => ({ ...m, error: why }));
        return null;
      });
      if (done !== null) closed.push(done);
    }
    return closed;
  }

  private async finish(port: TerminalPort, listing: Listing, mark: DoneMark): Promise<DoneMark | null> {
    const pane = listing.panes.find(
      (p) => p.terminal_id === mark.terminal_id || (mark.terminal_id === null && p.pane_id === mark.pane),
    );
    if (pane === undefined) {
      // The pane went by itself: the completion worker closes the item; the mark is spent.
      return this.change(mark.id, (m) => ({ ...m, state: 'closed', state_ms: this.deps.now() }));
    }
    const agent = listing.agents.find((entry) => entry.terminal_id === pane.terminal_id);
    if (agent === undefined) return null;
    if (
      mark.agent_session !== null &&
      agent.agent_session !== undefined &&
      agent.agent_session.value !== mark.agent_session
    ) {
      return this.change(mark.id, (m) => ({
        ...m,
        state: 'closed',
        state_ms: this.deps.now(),
        error: 'another agent session',
      }));
    }
    if (!turnEnded(mark, agent)) return null;
    // Settled records too: the work may have been delivered and moved out of the live file since.
    const records = await readAllRecords(this.deps, pane.terminal_id).catch(() => []);
    const work = cancellingWork(mark, records);
    if (work !== null) {
      // The child took new work in its final turn: it is not finished, so nothing closes.
      return this.change(mark.id, (m) => ({
        ...m,
        state: 'closed',
        state_ms: this.deps.now(),
        error: `cancelled: inbox ${work.kind} ${work.id} arrived in the same turn`,
      }));
    }
    if (mark.state === 'marked')
      await this.change(mark.id, (m) => ({ ...m, state: 'ended', state_ms: this.deps.now() }));
    const { reply, usage } = await childEnd(this.deps, port, agent);
    if (mark.item !== null) {
      const item = await this.keepEnd(mark.item, reply, usage);
      // Its branch is observed first, so the owner's Stop that delivers the reply also carries the
      // TO LAND reminder (an older observation may predate the child's last commit).
      if (item?.branch) await this.watchBranches();
      // Posted once (by its ref) before anything closes: a crash after it repeats nothing.
      if (item?.owner) await this.tellOwner(port, listing, item, reply);
      if (item) await this.tellSenders(listing, item, pane.terminal_id, records);
    }
    await closeChild({ ...this.deps, port }, { pane: pane.pane_id, caller: null, mode: 'done' });
    await closeItemsOf(this.deps, pane.pane_id, pane.terminal_id, 'done');
    return this.change(mark.id, (m) => ({ ...m, state: 'closed', state_ms: this.deps.now(), error: null }));
  }

  private async watchBranches(): Promise<void> {
    this.watchedMs = this.deps.now();
    await observeBranches(this.deps, (line) => this.warnOnce(line)).catch((error: unknown) =>
      this.warnOnce(`dogsled serve: branches: ${squeezedLine(messageOf(error))}`),
    );
  }

  /** The reply and receipt onto the item, once: a repeated pass keeps the first receipt. */
  private async keepEnd(
    itemId: string,
    reply: string | null,
    usage: ModelUsage[] | null,
  ): Promise<Item | undefined> {
    const prices = priceTable(this.deps.config.prices);
    return updateItems(this.deps, (items) => {
      const index = items.items.findIndex((item) => item.id === itemId);
      const item = items.items[index];
      if (item === undefined || (item.reply === reply && item.receipt != null)) return { result: item };
      const list = items.items.slice();
      const receipt = item.receipt ?? childReceipt(usage, prices, item.created_ms, this.deps.now());
      const next = { ...item, reply, receipt };
      list[index] = next;
      return { result: next, next: { ...items, items: list } };
    });
  }

  /**
   * The owner's inbox gets the child's reply as a `reply` record. An owner that Herdr no longer shows
   * has no inbox to read it: the reply stays on the item (`read`, the board) and nothing waits.
   */
  private async tellOwner(
    port: TerminalPort,
    listing: Listing,
    item: Item,
    reply: string | null,
  ): Promise<void> {
    const owner = await paneWhereabouts(port, item.owner as string, listing);
    if (owner === undefined) return;
    const record = pendingRecord(
      {
        id: newId('m'),
        kind: 'reply',
        // From the child itself, so the owner's reader names who answered.
        sender: { pane: item.pane, terminal: item.terminal_id, host: item.host, name: item.name ?? null },
        text: finishedText(item.name ?? item.id, reply, item.receipt ?? null),
        ref: `reply:${item.id}`,
      },
      this.deps.now(),
    );
    await postRecord(this.deps, owner.terminal, owner.pane, record);
  }

  /**
   * Every other pane that sent the child work hears `<name> finished` (spec: "Senders receive <name>
   * finished; start a new child for more work"), once each by its ref. The owner has the reply
   * already; a sender Herdr no longer shows has no inbox to read it.
   */
  private async tellSenders(
    listing: Listing,
    item: Item,
    childTerminal: string,
    records: readonly InboxRecord[],
  ): Promise<void> {
    const owner = item.owner === null ? undefined : listing.panes.find((p) => p.pane_id === item.owner);
    const live = new Map(listing.panes.map((p) => [p.terminal_id, p.pane_id]));
    const told = new Set<string>();
    const elsewhere = new Map<string, { host: string; pane: string }>();
    for (const { sender } of records) {
      const terminal = sender.terminal;
      if (sender.host !== LOCAL_HOST.id) {
        const far = remoteSender(sender, item);
        if (far !== null) elsewhere.set(`${far.host} ${far.pane}`, far);
        continue;
      }
      if (terminal === null || told.has(terminal)) continue;
      if (terminal === childTerminal || terminal === owner?.terminal_id || sender.pane === item.owner)
        continue;
      const pane = live.get(terminal);
      if (pane === undefined) continue;
      told.add(terminal);
      const name = item.name ?? item.id;
      const record = pendingRecord(
        {
          id: newId('m'),
          // Not work: a sender that is itself a child finishing keeps its own done mark.
          kind: 'reply',
          sender: { pane: item.pane, terminal: childTerminal, host: item.host, name: item.name ?? null },
          text: senderFinishedText(name),
          ref: `finished:${item.id}`,
        },
        this.deps.now(),
      );
      await postRecord(this.deps, terminal, pane, record);
    }
    // A sender on another host hears it through this host's outbox, which its service takes.
    for (const far of elsewhere.values()) {
      const record = pendingRecord(
        {
          id: newId('m'),
          kind: 'reply',
          sender: { pane: item.pane, terminal: childTerminal, host: item.host, name: item.name ?? null },
          text: senderFinishedText(item.name ?? item.id),
          ref: `finished:${item.id}`,
        },
        this.deps.now(),
      );
      const posted = { ref: `finished:${item.id}:${far.pane}`, message: { owner_pane: far.pane, record } };
      await postForHost(this.deps, far.host, item.id, posted);
    }
  }

  private async change(id: string, fn: (mark: DoneMark) => DoneMark): Promise<DoneMark | null> {
    return updateDoneMarks(this.deps, (file) => {
      const index = file.marks.findIndex((mark) => mark.id === id && mark.state !== 'closed');
      const mark = file.marks[index];
      if (mark === undefined) return { result: null };
      const marks = file.marks.slice();
      const next = fn(mark);
      marks[index] = next;
      return { result: next, next: { ...file, marks } };
    });
  }

  private async expire(marks: readonly DoneMark[]): Promise<void> {
    const now = this.deps.now();
    const old = (mark: DoneMark) => mark.state === 'closed' && now - mark.state_ms > MARK_RETENTION_MS;
    if (!marks.some(old)) return;
    await updateDoneMarks(this.deps, (file) => ({
      result: undefined,
      next: { ...file, marks: file.marks.filter((m) => !old(m)) },
    }));
  }

  private warnOnce(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.deps.warn(line);
  }
}

/**
 * A sender on another host that can be told (its identity and pane known), unless it is the child's
 * owner there, which has the reply already.
 */
function remoteSender(sender: InboxSender, item: Item): { host: string; pane: string } | null {
  const host = sender.host_id;
  if (typeof host !== 'string' || !HOST_IDENTITY.test(host) || sender.pane === null || sender.pane === '')
    return null;
  if (host === item.owner_host && sender.pane === item.owner_pane) return null;
  return { host, pane: sender.pane };
}
