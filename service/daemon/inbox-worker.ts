// The service's inbox worker (spec, "Inbox"): offers records whose lease ended again (rewriting them
// pending, so a reader watching the file sees the change), moves settled records out of the live
// files into their settled files (inbox/settled.ts) and drops those settled a day ago, fails the
// undelivered records of a terminal Herdr no longer shows and tells each sender in its own inbox,
// and posts the ticket notices admission leaves (`notice: "pending"`) to the owner's inbox.
// Crash-safe by order: a notice is posted (once, by its ref) before the record it is about changes.

import { messageOf } from '../core/common/errors.js';
import {
  failUndelivered,
  isDisposable,
  isExpiredRecord,
  isUndelivered,
  pendingRecord,
  reofferExpired,
  serviceSender,
} from '../core/inbox/inbox.js';
import { compactionDue } from '../core/inbox/inbox-space.js';
import { ticketNoticeText, undeliveredText } from '../core/inbox/inbox-text.js';
import type { Inbox, InboxRecord } from '../core/inbox/inbox-types.js';
import type { Ticket } from '../core/placement/queue-types.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { inboxTerminals, readInbox, removeInbox, updateInbox } from '../inbox/inbox-files.js';
import { postRecord } from '../inbox/post.js';
import { compactLocked, dropBodies } from '../inbox/settled.js';
import { paneWhereabouts } from '../inbox/whereabouts.js';
import { newId } from '../state/engine/ids.js';
import type { ProcessIO } from '../state/io.js';
import { readQueue, updateQueue } from '../state/records/queue-items.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Listing } from '../terminal/port-records.js';
import { type LoopOptions, runLoop } from './work-loop.js';

/** How long one Herdr listing may take before this pass judges no terminal gone. */
const LISTING_TIMEOUT_MS = 10_000;
/**
 * How often each terminal's settled file is tidied (a day's retention, orphan bodies) and a gone
 * terminal's removal tried: both read the settled file, which a pass on every interval need not.
 */
const SETTLED_TIDY_MS = 10 * 60_000;
export const TERMINAL_GONE = 'its terminal is gone';

/** One Herdr listing that answered, and the port that took it (a moved owner pane resolves through it). */
interface Seen {
  port: TerminalPort;
  listing: Listing;
  terminals: ReadonlySet<string>;
}

export interface InboxPass {
  reoffered: number;
  failed: InboxRecord[];
  notices: InboxRecord[];
}

export class InboxWorker {
  private readonly warned = new Set<string>();
  /** When each terminal's settled file was last tidied by this worker. */
  private readonly tidied = new Map<string, number>();

  /** The state it tends, and the environment and home Herdr is found with. */
  constructor(private readonly io: ProcessIO) {}

  async pass(): Promise<InboxPass> {
    const result: InboxPass = { reoffered: 0, failed: [], notices: [] };
    const inboxes = await this.readAll();
    const notices = await this.pendingNotices();
    // Herdr is asked only when there is something to judge: an inbox (its terminal may be gone) or a notice.
    const seen = notices.length > 0 || inboxes.length > 0 ? await this.seeTerminals() : undefined;
    for (const { terminal, inbox } of inboxes) {
      try {
        const settledDue = this.settledDue(terminal);
        result.reoffered += await this.tidy(terminal, inbox, settledDue);
        if (seen && !seen.terminals.has(terminal))
          result.failed.push(...(await this.gone(terminal, inbox, settledDue)));
      } catch (error) {
        this.warnOnce(messageOf(error));
      }
    }
    if (seen) {
      for (const ticket of notices) {
        try {
          const posted = await this.notify(ticket, seen);
          if (posted) result.notices.push(posted);
        } catch (error) {
          this.warnOnce(messageOf(error));
        }
      }
    }
    return result;
  }

  private async readAll(): Promise<{ terminal: string; inbox: Inbox }[]> {
    const found: { terminal: string; inbox: Inbox }[] = [];
    for (const terminal of await inboxTerminals(this.io)) {
      try {
        const inbox = await readInbox(this.io, terminal);
        if (inbox) found.push({ terminal, inbox });
      } catch (error) {
        this.warnOnce(messageOf(error));
      }
    }
    return found;
  }

  /** Whether this pass tidies `terminal`'s settled file (then the next one in SETTLED_TIDY_MS does). */
  private settledDue(terminal: string): boolean {
    const now = this.io.now();
    const last = this.tidied.get(terminal);
    if (last !== undefined && now - last < SETTLED_TIDY_MS) return false;
    this.tidied.set(terminal, now);
    return true;
  }

  /**
   * Expired leases back to pending; settled records out of the live file once enough wait there
   * (or `settledDue`: then the settled file is tidied too). Returns how many were re-offered.
   */
  private async tidy(terminal: string, seen: Inbox, settledDue: boolean): Promise<number> {
    const now = this.io.now();
    const compact =
      settledDue || compactionDue(seen.records, now) || seen.records.some((r) => isExpiredRecord(r, now));
    if (reofferExpired(seen, now).reoffered.length === 0 && !compact) return 0;
    const dropped: InboxRecord[] = [];
    const reoffered = await updateInbox(this.io, terminal, seen.pane, async (inbox) => {
      const reoffer = reofferExpired(inbox, this.io.now());
      const count = reoffer.reoffered.length;
      if (!compact) return count > 0 ? { result: count, next: reoffer.next } : { result: 0 };
      const plan = await compactLocked(this.io, terminal, reoffer.next, { sweep: settledDue });
      dropped.push(...plan.dropped);
      const changed = count > 0 || plan.live.length !== inbox.records.length;
      return changed ? { result: count, next: { ...reoffer.next, records: plan.live } } : { result: count };
    });
    await dropBodies(this.io, terminal, dropped);
    return reoffered;
  }

  /**
   * A terminal Herdr no longer shows: each undelivered record fails, after its sender's inbox has
   * a notice about it; a file with nothing left to keep is removed.
   */
  private async gone(terminal: string, seen: Inbox, settledDue: boolean): Promise<InboxRecord[]> {
    const undelivered = seen.records.filter(isUndelivered);
    // A gone terminal keeps its failed records a day for its senders' `inbox list`: nothing to do till
    // then (its settled records are looked at only as often as they are tidied).
    if (undelivered.length === 0 && !(settledDue && isDisposable(seen, this.io.now()))) return [];
    const target = seen.pane ?? terminal;
    for (const record of undelivered) {
      const back = record.sender.terminal;
      if (back === null || back === terminal || record.sender.host !== LOCAL_HOST.id) continue;
      const notice = pendingRecord(
        {
          id: newId('m'),
          kind: 'undelivered',
          sender: serviceSender(LOCAL_HOST.id),
          text: undeliveredText(record, target, TERMINAL_GONE),
          ref: `undelivered:${record.id}`,
        },
        this.io.now(),
      );
      await postRecord(this.io, back, record.sender.pane, notice);
    }
    const failed =
      undelivered.length === 0
        ? []
        : await updateInbox(this.io, terminal, seen.pane, (inbox) => {
            const only = new Set(undelivered.map((record) => record.id));
            const { next, failed } = failUndelivered(inbox, TERMINAL_GONE, this.io.now(), only);
            return failed.length > 0 ? { result: failed, next } : { result: failed };
          });
    await removeInbox(this.io, terminal, (records) => isDisposable({ records }, this.io.now()));
    return failed;
  }

  /** Settled tickets whose owner did not wait and has not heard yet. */
  private async pendingNotices(): Promise<Ticket[]> {
    const queue = await readQueue(this.io);
    return queue.tickets.filter(
      (t) => t.notice === 'pending' && t.owner !== null && (t.state === 'admitted' || t.state === 'failed'),
    );
  }

  /**
   * Posts the ticket's notice to its owner's inbox (once, by ref), then marks the notice delivered.
   * An owner pane Herdr does not show keeps its notice pending until the ticket expires.
   */
  private async notify(ticket: Ticket, seen: Seen): Promise<InboxRecord | undefined> {
    const owner = await paneWhereabouts(seen.port, ticket.owner as string, seen.listing);
    if (owner === undefined) return undefined;
    const notice = pendingRecord(
      {
        id: newId('m'),
        // A child that could not be started is a launch failure; anything else an admission.
        kind: ticket.agent && ticket.state === 'failed' ? 'launch_failed' : 'admission',
        sender: serviceSender(LOCAL_HOST.id),
        text: ticketNoticeText(ticket),
        ref: `ticket:${ticket.id}:${ticket.state}`,
        ...(ticket.state === 'admitted' && ticket.worktree
          ? { path: ticket.worktree.path, pane_id: ticket.worktree.pane_id }
          : {}),
      },
      this.io.now(),
    );
    const posted = (await postRecord(this.io, owner.terminal, owner.pane, notice))?.record;
    await updateQueue(this.io, (queue) => {
      const index = queue.tickets.findIndex((t) => t.id === ticket.id);
      const current = queue.tickets[index];
      if (current === undefined || current.notice !== 'pending' || current.state !== ticket.state)
        return { result: undefined };
      const tickets = queue.tickets.slice();
      tickets[index] = { ...current, notice: 'delivered' };
      return { result: undefined, next: { ...queue, tickets } };
    });
    return posted;
  }

  /** The terminals Herdr shows, or undefined when Herdr is absent or did not answer in time. */
  private async seeTerminals(): Promise<Seen | undefined> {
    let listing: Listing;
    let port: TerminalPort;
    try {
      const { openTerminal } = await import('../terminal/open.js');
      port = await openTerminal({
        env: this.io.env,
        home: this.io.home,
        commandName: 'serve',
        timeoutMs: LISTING_TIMEOUT_MS,
        warn: (line) => this.warnOnce(line),
      });
      if (port.kind === 'headless') return undefined;
      listing = await port.listAll({ signal: AbortSignal.timeout(LISTING_TIMEOUT_MS) });
    } catch {
      return undefined;
    }
    return { port, listing, terminals: new Set(listing.panes.map((pane) => pane.terminal_id)) };
  }

  private warnOnce(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.io.warn(line.startsWith('dogsled') ? line : `dogsled serve: inbox: ${line}`);
  }
}

/** Runs the inbox worker on the service's pace until the loop's signal aborts; queue.json pokes it. */
export function runInboxWorker(
  io: ProcessIO,
  loop: Omit<LoopOptions, 'name' | 'pass' | 'watch'>,
): Promise<void> {
  const worker = new InboxWorker(io);
  return runLoop({
    ...loop,
    name: 'inbox',
    pass: async () => {
      await worker.pass();
    },
    watch: { dir: io.paths.dir, files: ['queue.json'] },
  });
}
