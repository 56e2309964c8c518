// Pi's inbox reader (spec, "Inbox" readers): registers this pane's terminal as a Pi reader, watches
// its inbox file, claims each batch through `dogsled inbox claim`, injects it as ONE `dogsled`
// message (steer while the agent runs, a new turn when it is idle), and acknowledges the records
// only once the message is an entry of Pi's session. Until then the claim is a lease: if Pi dies or
// drops the message, the records are offered again when it ends. Nothing polls: the file's changes
// wake the reader, plus one timer at the earliest lease end the file holds.

import { randomUUID } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type LongTimer, longTimeout } from '../../../service/actions/pi-extension.js';
import { callDogsled, jsonOf } from './binary.js';
import { type PiDeps, stateDir } from './deps.js';
import { batchMessage, type ClaimedRecord, claimedRecords, MESSAGE_TYPE } from './message.js';
import type { ExtensionAPI, ExtensionContext } from './pi-api.js';

/** Herdr terminal ids as the inbox files use them (service/inbox/inbox-files.ts refuses anything else). */
const TERMINAL_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** An inbox larger than this is not read for the pre-check; the claim decides instead. */
const PRECHECK_MAX_BYTES = 64 * 1024 * 1024;
/** Wake a little after a lease ends, so the claim sees it ended. */
const LEASE_SLACK_MS = 50;

interface InPi {
  ids: string[];
}

export type ReaderStatus = (text: string | undefined) => void;

export class InboxReader {
  private terminal: string | undefined;
  private watcher: FSWatcher | undefined;
  private leaseTimer: LongTimer | undefined;
  private busy = false;
  private again = false;
  private stopped = false;
  /** Batches injected into Pi and not yet seen in its session, by batch id. */
  private readonly inPi = new Map<string, InPi>();

  constructor(
    private readonly pi: ExtensionAPI,
    private readonly deps: PiDeps,
    private readonly context: () => ExtensionContext | undefined,
    private readonly status: ReaderStatus,
  ) {}

  /** The first claim registers the reader and names the terminal; the watch starts after it. */
  start(): Promise<void> {
    return this.check();
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    this.watcher = undefined;
    this.leaseTimer?.clear();
  }

  /** Something in Pi's session may have been written: acknowledge what now is. */
  sessionChanged(): void {
    // Pi persists a message right after its message_end handlers return, so look one tick later.
    setImmediate(() => void this.confirmWritten());
  }

  /** Records of this process that Pi holds and has not written yet. */
  private ownIds(): Set<string> {
    return new Set([...this.inPi.values()].flatMap((batch) => batch.ids));
  }

  private check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.busy) {
      this.again = true;
      return Promise.resolve();
    }
    this.busy = true;
    return (async () => {
      try {
        do {
          this.again = false;
          await this.once();
        } while (this.again && !this.stopped);
      } finally {
        this.busy = false;
      }
    })();
  }

  private async once(): Promise<void> {
    const file = this.inboxFile();
    if (file !== undefined) {
      const seen = await this.precheck(file);
      this.armLeaseTimer(seen.leaseEnd);
      if (!seen.worth) return;
    }
    const answer = jsonOf(await callDogsled(this.deps, ['inbox', 'claim', '--harness', 'pi']));
    if (this.stopped) return;
    if (answer.value === undefined) {
      this.status(`inbox: ${answer.why}`);
      return;
    }
    this.status(undefined);
    const terminal = (answer.value as { terminal?: unknown }).terminal;
    if (typeof terminal === 'string' && TERMINAL_ID.test(terminal) && !terminal.includes('..')) {
      if (terminal !== this.terminal) this.watchInbox(terminal);
    }
    const own = this.ownIds();
    const fresh = claimedRecords(answer.value).filter((record) => !own.has(record.id));
    if (fresh.length > 0) this.inject(fresh);
    const after = this.inboxFile();
    if (after !== undefined) this.armLeaseTimer((await this.precheck(after)).leaseEnd);
  }

  private inboxFile(): string | undefined {
    return this.terminal === undefined
      ? undefined
      : join(stateDir(this.deps), 'inbox', `${this.terminal}.json`);
  }

  private inject(records: ClaimedRecord[]): void {
    const batch = randomUUID();
    const ids = records.map((record) => record.id);
    this.inPi.set(batch, { ids });
    try {
      this.pi.sendMessage(
        {
          customType: MESSAGE_TYPE,
          content: batchMessage(records, this.deps.now()),
          display: true,
          details: { batch, records },
        },
        // Pi steers a running agent and starts a turn for an idle one.
        { deliverAs: 'steer', triggerTurn: true },
      );
    } catch (error) {
      // Not injected: the lease ends and the records are claimed again.
      this.inPi.delete(batch);
      this.status(`inbox: Pi refused the message: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Acknowledges every batch that is now an entry of the session. */
  private async confirmWritten(): Promise<void> {
    const written = this.writtenBatches();
    for (const batch of written) {
      const entry = this.inPi.get(batch);
      if (entry === undefined) continue;
      this.inPi.delete(batch);
      await this.ack(entry.ids);
    }
    if (written.length > 0) await this.check();
  }

  private writtenBatches(): string[] {
    if (this.inPi.size === 0) return [];
    const entries = this.context()?.sessionManager.getEntries() ?? [];
    const waiting = new Set(this.inPi.keys());
    const found: string[] = [];
    for (let i = entries.length - 1; i >= 0 && waiting.size > 0; i--) {
      const entry = entries[i];
      if (entry?.type !== 'custom_message' || entry.customType !== MESSAGE_TYPE) continue;
      const batch = (entry.details as { batch?: unknown } | undefined)?.batch;
      if (typeof batch === 'string' && waiting.delete(batch)) found.push(batch);
    }
    return found;
  }

  /** `inbox ack` refuses a whole set for one bad id; then each id goes alone. */
  private async ack(ids: string[]): Promise<void> {
    const all = await callDogsled(this.deps, ['inbox', 'ack', ...ids]);
    if (all.ok || ids.length === 1) return;
    for (const id of ids) await callDogsled(this.deps, ['inbox', 'ack', id]);
  }

  private watchInbox(terminal: string): void {
    this.terminal = terminal;
    this.watcher?.close();
    try {
      // The directory, not the file: every write replaces the file by a rename.
      this.watcher = watch(join(stateDir(this.deps), 'inbox'), (_event, name) => {
        if (name === null || name === `${terminal}.json`) void this.check();
      });
      this.watcher.on('error', () => this.status('inbox: watching stopped; messages arrive on restart'));
      this.watcher.unref();
    } catch (error) {
      this.status(`inbox: cannot watch: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }

  /**
   * Reads the inbox without a lock to decide whether a claim could take anything: a change this
   * reader made itself (a claim, an ack) must not start another process. Anything doubtful says yes.
   */
  private async precheck(file: string): Promise<{ worth: boolean; leaseEnd: number | undefined }> {
    let inbox: { reader?: { harness?: unknown } | null; records?: unknown };
    try {
      const info = await lstat(file);
      if (!info.isFile() || info.size > PRECHECK_MAX_BYTES) return { worth: true, leaseEnd: undefined };
      inbox = JSON.parse(await readFile(file, 'utf8'));
    } catch {
      return { worth: true, leaseEnd: undefined };
    }
    if (inbox?.reader?.harness !== 'pi' || !Array.isArray(inbox.records))
      return { worth: true, leaseEnd: undefined };
    const now = this.deps.now();
    const own = this.ownIds();
    let worth = false;
    let leaseEnd: number | undefined;
    for (const record of inbox.records as Array<Record<string, unknown>>) {
      if (record.state === 'pending') worth = true;
      if (record.state !== 'claimed' || typeof record.lease_until_ms !== 'number') continue;
      if (record.lease_until_ms <= now && !own.has(String(record.id))) worth = true;
      if (record.lease_until_ms > now) leaseEnd = Math.min(leaseEnd ?? Infinity, record.lease_until_ms);
    }
    return { worth, leaseEnd };
  }

  /** One timer at the earliest lease end: a claim whose reader died is offered again then. */
  private armLeaseTimer(leaseEnd: number | undefined): void {
    this.leaseTimer?.clear();
    this.leaseTimer = undefined;
    if (leaseEnd === undefined || this.stopped) return;
    this.leaseTimer = longTimeout(
      leaseEnd - this.deps.now() + LEASE_SLACK_MS,
      () => {
        this.dropLost();
        void this.check();
      },
      { ref: false },
    );
  }

  /** An idle Pi that never wrote a batch lost it (an abort cleared its queue): claim it again. */
  private dropLost(): void {
    const ctx = this.context();
    if (ctx === undefined || !ctx.isIdle()) return;
    const written = new Set(this.writtenBatches());
    for (const batch of [...this.inPi.keys()]) if (!written.has(batch)) this.inPi.delete(batch);
    if (written.size > 0) void this.confirmWritten();
  }
}
