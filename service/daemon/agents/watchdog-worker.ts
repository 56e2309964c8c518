// The service's watchdog (spec, "Stalls and check-ins"): every minute, job-completion events are
// recorded, due check-ins are posted to idle or done owners' inboxes, and stalled top-level panes
// get one Herdr notification per stall episode. Crash-safe by order: a check-in is recorded as
// pending in watchdog.json before it is posted (once, by its ref) and marked delivered after, so a
// restart re-posts the same record and never a second one; a notification is recorded before it is
// sent, so a crash loses it rather than repeating it. Lock order: watchdog.json and an inbox are
// each taken alone, never one inside the other. A stalled child whose owner is on another host
// (parents.json) reaches its owner through the outbox instead (forwardStalls).

import {
  checkInPlan,
  emptyWatchdog,
  type JobEvent,
  keptNotifications,
  notificationsDue,
  type OwnerFacts,
  pruneEvents,
  WATCHDOG_PACE_MS,
} from '../../core/agents/watchdog-rule.js';
import type { PendingCheckIn, WatchdogOwner, WatchdogState } from '../../core/agents/watchdog-types.js';
import { messageOf } from '../../core/common/errors.js';
import { testKnob } from '../../core/common/test-knobs.js';
import { checkInText } from '../../core/inbox/check-in-text.js';
import { pendingRecord, serviceSender } from '../../core/inbox/inbox.js';
import { clip, plainLine } from '../../core/text/clean.js';
import { LOCAL_HOST } from '../../hosts/local-facts.js';
import { postRecord } from '../../inbox/post.js';
import { guarded } from '../../state/engine/guarded.js';
import { newId } from '../../state/engine/ids.js';
import { readState, updateState } from '../../state/engine/store.js';
import type { ProcessIO } from '../../state/io.js';
import { WatchdogSchema } from '../../state/schemas/watchdog-schemas.js';
import type { TerminalPort } from '../../terminal/port.js';
import {
  type ChildSource,
  NO_CHILDREN,
  newJobEvents,
  ownerViews,
  readWatchdogFacts,
  type WatchdogFacts,
} from '../../watchdog/watchdog-facts.js';
import { runLoop } from '../work-loop.js';
import { forwardStalls } from './stall-forward.js';

/** One Herdr call of the watchdog (a pane read, a notification) gets this long. */
const HERDR_CALL_MS = 5_000;
/** Plain pane text for an agent whose transcript format is unknown: the last few lines. */
const PANE_TEXT_LINES = 3;

export interface WatchdogIO extends ProcessIO {
  /** The agent work's view of children (orphans); none without it. */
  children?: ChildSource;
  /** Herdr for notifications and plain pane text; undefined opens it from `env` when needed. */
  port?: () => Promise<TerminalPort | undefined>;
}

export interface WatchdogPass {
  /** The check-in records posted this pass, by owner pane. */
  checkIns: Array<{ owner: string; ref: string; text: string }>;
  /** Top-level panes notified this pass. */
  notified: string[];
  /** Job-completion events first seen this pass. */
  events: string[];
  /** Stall check-ins posted this pass for owners on other hosts, by ref. */
  forwarded: string[];
}

const EMPTY_OWNER: WatchdogOwner = { last_check_in_ms: null, last_event_ms: null, stalls: {}, pending: null };

export class WatchdogWorker {
  private port: TerminalPort | null | undefined;
  private readonly warned = new Set<string>();
  /** Stall episodes forwarded to owners elsewhere in this service run (the ref stops a repeat after). */
  private readonly forwarded = new Set<string>();

  constructor(private readonly io: WatchdogIO) {}

  async pass(): Promise<WatchdogPass> {
    const result: WatchdogPass = { checkIns: [], notified: [], events: [], forwarded: [] };
    let state = await this.start();
    const events = await newJobEvents(this.io, state);
    if (events.length > 0) {
      state = await this.recordEvents(events);
      result.events = events.map((event) => event.job);
    }
    const facts = await readWatchdogFacts(this.io, this.io.children ?? NO_CHILDREN);
    for (const view of await ownerViews(this.io, facts, state, (line) => this.warnOnce(line))) {
      try {
        const posted = await this.checkIn(view.facts, view.terminal, state);
        if (posted) result.checkIns.push(posted);
      } catch (error) {
        this.warnOnce(`check-in of ${view.facts.owner}: ${messageOf(error)}`);
      }
    }
    result.notified = await this.notifyStalls(facts);
    result.forwarded = await forwardStalls(this.io, facts, {
      told: this.forwarded,
      paneText: (owner) => this.withPaneText(owner),
      warn: (line) => this.warnOnce(line),
    });
    return result;
  }

  /** watchdog.json as it is, created (with `since_ms` now) on the first pass. */
  private async start(): Promise<WatchdogState> {
    const file = this.io.paths.watchdog;
    const seen = await guarded(this.io, file, () => readState(file, WatchdogSchema, this.io));
    if (seen !== undefined) return seen;
    return this.update((current) => {
      if (current !== undefined) return { result: current };
      const fresh = emptyWatchdog(this.io.now());
      return { result: fresh, next: fresh };
    });
  }

  private update<R>(
    fn: (current: WatchdogState | undefined) => { result: R; next?: WatchdogState },
  ): Promise<R> {
    const file = this.io.paths.watchdog;
    return guarded(this.io, file, () => updateState(file, WatchdogSchema, this.io, fn));
  }

  private recordEvents(events: readonly JobEvent[]): Promise<WatchdogState> {
    const now = this.io.now();
    return this.update((current) => {
      const state = current ?? emptyWatchdog(now);
      const next: WatchdogState = { ...state, owners: { ...state.owners }, events: pruneEvents(state, now) };
      for (const event of events) {
        if (state.events[event.job] !== undefined) continue;
        const { job, ...rest } = event;
        next.events[job] = {
          ...rest,
          command: [...rest.command],
          log: [...rest.log],
          seen_ms: now,
          delivered_ms: null,
        };
        const owner = next.owners[event.owner] ?? EMPTY_OWNER;
        next.owners[event.owner] = {
          ...owner,
          last_event_ms: Math.max(owner.last_event_ms ?? -Infinity, event.ended_ms),
        };
      }
      return { result: next, next };
    });
  }

  /** Posts the owner's pending check-in, or decides, records and posts a new one when one is due. */
  private async checkIn(
    facts: OwnerFacts,
    terminal: string | undefined,
    state: WatchdogState,
  ): Promise<{ owner: string; ref: string; text: string } | undefined> {
    let pending = state.owners[facts.owner]?.pending ?? null;
    if (pending === null) {
      if (terminal === undefined) return undefined;
      const plan = checkInPlan(facts, state, this.io.now());
      if (plan === undefined) return undefined;
      const events = plan.jobs.flatMap((job) => {
        const event = state.events[job];
        return event === undefined ? [] : [{ job, ...event }];
      });
      const text = checkInText(await this.withPaneText(facts), events, plan.reasons, this.io.now());
      const decided: PendingCheckIn = {
        ref: `check_in:${newId('c')}`,
        terminal,
        pane: facts.owner,
        text,
        decided_ms: this.io.now(),
        stalls: plan.stalls,
        jobs: plan.jobs,
      };
      pending = await this.update((current) => {
        const now = current ?? emptyWatchdog(this.io.now());
        const memory = now.owners[facts.owner] ?? EMPTY_OWNER;
        // Another pass decided first (never with the service lock held, but cheap to respect).
        if (memory.pending !== null) return { result: memory.pending };
        return {
          result: decided,
          next: { ...now, owners: { ...now.owners, [facts.owner]: { ...memory, pending: decided } } },
        };
      });
    }
    if (!facts.reader) return undefined;
    const record = pendingRecord(
      {
        id: newId('m'),
        kind: 'check_in',
        sender: serviceSender(LOCAL_HOST.id),
        text: pending.text,
        ref: pending.ref,
      },
      this.io.now(),
    );
    const posted = pending;
    // A reader that went away meanwhile: the check-in stays pending until one reads here again.
    const added = await postRecord(
      this.io,
      posted.terminal,
      posted.pane,
      record,
      (inbox) => inbox.reader !== null,
    );
    if (added === undefined) return undefined;
    const open = new Set(facts.children.map((child) => child.item));
    await this.update((current) => {
      const now = current ?? emptyWatchdog(this.io.now());
      const memory = now.owners[facts.owner] ?? EMPTY_OWNER;
      if (memory.pending?.ref !== posted.ref) return { result: undefined };
      const stalls = Object.fromEntries(
        Object.entries({ ...memory.stalls, ...posted.stalls }).filter(([item]) => open.has(item)),
      );
      const events = { ...now.events };
      for (const job of posted.jobs) {
        const event = events[job];
        if (event !== undefined)
          events[job] = { ...event, delivered_ms: event.delivered_ms ?? this.io.now() };
      }
      const owner: WatchdogOwner = { ...memory, pending: null, last_check_in_ms: posted.decided_ms, stalls };
      return { result: undefined, next: { ...now, events, owners: { ...now.owners, [facts.owner]: owner } } };
    });
    return { owner: facts.owner, ref: posted.ref, text: posted.text };
  }

  /** Agents whose transcript format is unknown get their plain pane text as activity. */
  private async withPaneText(facts: OwnerFacts): Promise<OwnerFacts> {
    const unknown = facts.children.filter((child) => child.pane !== null && child.activity === null);
    if (unknown.length === 0) return facts;
    const port = await this.herdr();
    if (port === undefined) return facts;
    const children = await Promise.all(
      facts.children.map(async (child) => {
        if (child.pane === null || !unknown.includes(child)) return child;
        try {
          const read = await withTimeout(
            port.readPane(child.pane, { source: 'recent', lines: PANE_TEXT_LINES }),
          );
          return { ...child, activity: `screen: ${read.text}` };
        } catch {
          return child;
        }
      }),
    );
    return { ...facts, children };
  }

  /** One notification per stall episode of each top-level pane, recorded before it is sent. */
  private async notifyStalls(facts: WatchdogFacts): Promise<string[]> {
    const children = new Set<string>();
    for (const item of facts.items) {
      if (item.closed_ms !== null) continue;
      if (item.terminal_id !== null) children.add(item.terminal_id);
      if (item.pane !== null) children.add(item.pane);
    }
    for (const terminal of Object.keys(facts.parents?.children ?? {})) children.add(terminal);
    const stalled = facts.panes.flatMap((pane) =>
      pane.stalled_since_ms === null ? [] : [{ ...pane, stalled_since_ms: pane.stalled_since_ms }],
    );
    const topLevel = stalled.filter((pane) => !children.has(pane.terminal_id) && !children.has(pane.pane));
    const state = await this.start();
    const due = notificationsDue(topLevel, state);
    const kept = keptNotifications(state.notified, stalled);
    if (due.length === 0 && Object.keys(kept).length === Object.keys(state.notified).length) return [];
    const port = due.length === 0 ? undefined : await this.herdr();
    const send = port === undefined ? [] : due;
    const recorded = await this.update((current) => {
      const now = current ?? emptyWatchdog(this.io.now());
      const notified = keptNotifications(now.notified, stalled);
      const fresh = send.filter((pane) => now.notified[pane.terminal_id] !== pane.stalled_since_ms);
      for (const pane of fresh) notified[pane.terminal_id] = pane.stalled_since_ms;
      return { result: fresh, next: { ...now, notified } };
    });
    const sent: string[] = [];
    for (const pane of recorded) {
      try {
        await withTimeout(
          (port as TerminalPort).notify({
            // A pane's name is the agent's own text: untrusted, so escape-free and short.
            title: `dogsled: ${clip(plainLine(pane.name ?? pane.pane), 60)} stalled`,
            body: `No transcript change in ${pane.pane} since it stalled; it may need you.`,
            sound: 'request',
          }),
        );
        sent.push(pane.pane);
      } catch (error) {
        // Recorded already: this episode is not notified again (spec: a crash or failure loses it).
        this.warnOnce(`notification for ${pane.pane}: ${messageOf(error)}`);
      }
    }
    return sent;
  }

  private async herdr(): Promise<TerminalPort | undefined> {
    if (this.port !== undefined) return this.port ?? undefined;
    try {
      if (this.io.port) this.port = (await this.io.port()) ?? null;
      else {
        const { openTerminal } = await import('../../terminal/open.js');
        const port = await openTerminal({
          env: this.io.env,
          home: this.io.home,
          commandName: 'serve',
          timeoutMs: HERDR_CALL_MS,
          warn: (line) => this.warnOnce(line),
        });
        this.port = port.kind === 'headless' ? null : port;
      }
    } catch {
      this.port = null;
    }
    return this.port ?? undefined;
  }

  private warnOnce(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.io.warn(line.startsWith('dogsled') ? line : `dogsled serve: watchdog: ${line}`);
  }
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      const timer = setTimeout(() => reject(new Error('Herdr did not answer in time')), HERDR_CALL_MS);
      timer.unref();
    }),
  ]);
}

/**
 * The watchdog looks every minute. The WATCHDOG_PACE_MS knob shortens the look, never the rules (a
 * check-in still waits 30 quiet minutes), so a test sees a stall in seconds.
 */
export function watchdogPaceMs(env: NodeJS.ProcessEnv): number {
  return Math.min(testKnob(env, 'WATCHDOG_PACE_MS') ?? WATCHDOG_PACE_MS, WATCHDOG_PACE_MS);
}

/** Runs the watchdog every minute until the signal aborts; `report` carries its failure into host.json. */
export function startWatchdogWorker(
  io: WatchdogIO,
  signal: AbortSignal,
  report: (error: string | undefined) => void,
): { stop: () => Promise<void> } {
  const stopper = new AbortController();
  const worker = new WatchdogWorker(io);
  const done = runLoop({
    name: 'watchdog',
    paceMs: watchdogPaceMs(io.env),
    minGapMs: 1_000,
    signal: AbortSignal.any([signal, stopper.signal]),
    warn: io.warn,
    pass: async () => {
      try {
        await worker.pass();
        report(undefined);
      } catch (error) {
        report(`watchdog: ${messageOf(error)}`);
        throw error;
      }
    },
  });
  return {
    stop: async () => {
      stopper.abort();
      await done;
    },
  };
}
