// The service's orphan check (spec, "The sweep in serve"), run after the finish worker in its lane
// (at most every 5 s) and inside every requested sweep pass, never two at once: children that called
// done and whose owner is gone are closed through close's own teardown (agents/close-child.ts, loss
// rule and all), independent of any cleanup request. One that stays open carries `orphaned` on its
// item (status, the brief, prompt context, check-ins read it); a refused or failed close is retried
// on the shared backoff. A pass that closed, failed or changed what it holds is journaled and kept
// in sweeps.jsonl; sweep.json stays the record of the last requested pass.

import { performance } from 'node:perf_hooks';
import { type CloseIO, closeChild, KeepsWork } from '../../agents/close-child.js';
import { turnEnded } from '../../core/agents/done-rule.js';
import { applyClosures } from '../../core/agents/item-closing.js';
import type { Item } from '../../core/agents/item-types.js';
import {
  type ChildPane,
  ORPHAN_CLOSED,
  type OrphanVerdict,
  orphanLines,
  orphanVerdict,
} from '../../core/cleanup/orphan-rule.js';
import { completedPass, sweepCounts, sweepCountsText } from '../../core/cleanup/sweep-rule.js';
import type { OrphanHold, SweepPass } from '../../core/cleanup/sweep-types.js';
import { backoffRetryAt } from '../../core/common/backoff.js';
import { isDogsledError, messageOf } from '../../core/common/errors.js';
import { plainLine, squeezedLine } from '../../core/text/clean.js';
import { LOCAL_HOST } from '../../hosts/local-facts.js';
import { readPeerEntry } from '../../hosts/peer-cache.js';
import { ownerElsewhere } from '../../inbox/outbox.js';
import { paneWhereabouts } from '../../inbox/whereabouts.js';
import type { StateIO } from '../../state/io.js';
import { branchHolds } from '../../state/records/branch-observations.js';
import { type DoneMark, readDoneMarks, updateDoneMarks } from '../../state/records/done-marks.js';
import { readItems, updateItems } from '../../state/records/queue-items.js';
import { recordSweep } from '../../sweep/sweep-files.js';
import { callerPane } from '../../terminal/herdr/herdr-env.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Listing, Pane } from '../../terminal/port-records.js';
import type { ChildSource } from '../../watchdog/watchdog-facts.js';
import type { WorkerIO } from '../worker-io.js';

const LISTING_TIMEOUT_MS = 10_000;
/**
 * The finish lane passes every second; the orphan check, which reads Herdr again, runs at most this
 * often from there (a requested sweep pass runs it at once). Orphans are rare and never urgent.
 */
export const ORPHAN_CHECK_GAP_MS = 5_000;
const REASON_CHARS = 200;

/** What a check did, in the sweep's own entry shapes (kind `orphan`). */
export interface OrphanReport extends Pick<SweepPass, 'results' | 'skipped' | 'failures'> {
  held: OrphanHold[];
}

interface Retry {
  attempt: number;
  at_ms: number;
  reason: string;
}

/** The mark that says this item's child called done (one not yet closed by the finish worker). */
function markOf(item: Item, marks: readonly DoneMark[]): DoneMark | undefined {
  return marks.find(
    (mark) =>
      mark.state !== 'closed' &&
      (mark.item === item.id || (item.terminal_id !== null && mark.terminal_id === item.terminal_id)),
  );
}

export class OrphanLane {
  private readonly retries = new Map<string, Retry>();
  private readonly warned = new Set<string>();
  private running: Promise<unknown> = Promise.resolve();
  private lastPaced = -Infinity;

  constructor(
    private readonly io: WorkerIO,
    private readonly random: () => number = Math.random,
  ) {}

  /** The finish lane's call: a check when the last paced one is ORPHAN_CHECK_GAP_MS old. */
  async paced(): Promise<OrphanReport | undefined> {
    const now = performance.now();
    if (now - this.lastPaced < ORPHAN_CHECK_GAP_MS) return undefined;
    this.lastPaced = now;
    return this.pass();
  }

  /**
   * One check; `record` (the lane's own passes) keeps a pass that did something in sweeps.jsonl
   * (never sweep.json: that is the requested pass's), while a requested sweep pass records the
   * outcome with its own.
   */
  pass(options: { record: boolean } = { record: true }): Promise<OrphanReport> {
    const next = this.running.then(() => this.check(options.record));
    this.running = next.catch(() => undefined);
    return next;
  }

  private async check(record: boolean): Promise<OrphanReport> {
    const { io } = this;
    const report: OrphanReport = { results: [], skipped: [], failures: [], held: [] };
    const started_ms = io.now();
    const items = (await readItems(io)).items;
    const marks = (await readDoneMarks(io)).marks;
    const candidates: Array<{ item: Item; mark: DoneMark | undefined; host: OrphanHost }> = [];
    for (const item of items) {
      if (item.closed_ms !== null || item.kind !== 'agent') continue;
      const host = await this.hostOf(item.host);
      const mark = host === 'local' ? markOf(item, marks) : undefined;
      if (mark !== undefined || host === 'unreachable' || item.orphaned)
        candidates.push({ item, mark, host });
    }
    if (candidates.length === 0) return report;
    const port = await this.herdr();
    if (port === undefined) return report;
    let listing: Listing;
    try {
      listing = await port.listAll({ signal: AbortSignal.timeout(LISTING_TIMEOUT_MS) });
    } catch {
      return report;
    }
    const orphaned = new Map<string, Item['orphaned']>();
    const closed: Array<{ item: string; mark: string | null }> = [];
    for (const { item, mark, host } of candidates) {
      const pane = findPane(listing, item);
      const verdict = await this.verdictOf(port, listing, item, pane, mark, host).catch(
        (): OrphanVerdict => ({ kind: 'none' }),
      );
      const outcome: Outcome =
        verdict.kind === 'none'
          ? { kind: 'none' }
          : verdict.kind === 'keep'
            ? { kind: 'kept', reason: verdict.reason }
            : await this.close(port, item, pane?.pane_id ?? item.pane ?? '', report);
      if (outcome.kind === 'closed') {
        closed.push({ item: item.id, mark: mark?.id ?? null });
        continue;
      }
      if (outcome.kind === 'none') {
        this.retries.delete(item.id);
        orphaned.set(item.id, null);
        continue;
      }
      const reason = squeezedLine(plainLine(outcome.reason), REASON_CHARS);
      const since = item.orphaned?.reason === reason ? item.orphaned.since_ms : io.now();
      orphaned.set(item.id, { reason, since_ms: since });
      report.held.push({
        item: item.id,
        name: item.name ?? null,
        pane: pane?.pane_id ?? item.pane,
        path: item.worktree ?? null,
        reason,
      });
    }
    const differs = items.some(
      (item) => orphaned.has(item.id) && (item.orphaned ?? null)?.reason !== orphaned.get(item.id)?.reason,
    );
    const changed =
      differs || closed.length > 0
        ? await this.write(
            orphaned,
            closed.map((c) => c.item),
          )
        : false;
    await this.closeMarks(closed.flatMap((c) => (c.mark === null ? [] : [c.mark])));
    if (record && (changed || report.results.length > 0 || report.failures.length > 0)) {
      const pass = this.passOf(started_ms, report);
      await recordSweep(io, pass);
      this.journal(pass, changed);
    }
    return report;
  }

  private async hostOf(host: string): Promise<OrphanHost> {
    if (host === LOCAL_HOST.id) return 'local';
    const entry = await readPeerEntry(this.io, host).catch(() => undefined);
    return entry?.unreachable != null ? 'unreachable' : 'reachable';
  }

  private async verdictOf(
    port: TerminalPort,
    listing: Listing,
    item: Item,
    pane: Pane | undefined,
    mark: DoneMark | undefined,
    host: OrphanHost,
  ): Promise<OrphanVerdict> {
    // An owner Herdr cannot place (or a failed lookup) is doubtful: it counts as present.
    const ownerHere =
      item.owner !== null &&
      (await paneWhereabouts(port, item.owner, listing).then(
        (found) => found !== undefined,
        () => true,
      ));
    return orphanVerdict({
      item,
      done: host === 'local' ? mark !== undefined : 'unknown',
      // An owner on another host is not in this Herdr at all: its own service judges it.
      ownerHere: ownerHere || ownerElsewhere(item),
      host,
      pane: childPane(listing, pane, mark),
    });
  }

  /** Closes one orphan like `close`, unless a refused or failed try is still backing off. */
  private async close(port: TerminalPort, item: Item, pane: string, report: OrphanReport): Promise<Outcome> {
    const retry = this.retries.get(item.id);
    if (retry !== undefined && this.io.now() < retry.at_ms) return { kind: 'kept', reason: retry.reason };
    try {
      const io: CloseIO = { ...this.io, port };
      // The service's own pane is the caller: never closed, never the owner of what closes.
      const result = await closeChild(io, { pane, caller: callerPane(this.io.env), mode: 'orphan' });
      this.retries.delete(item.id);
      const worktree = result.worktree;
      report.results.push({
        kind: 'orphan',
        path: worktree?.path ?? pane,
        branch: worktree?.branch ?? null,
        branch_deleted: worktree?.branch_deleted ?? false,
        panes: result.pane_closed ? [pane] : [],
        already_removed: false,
        detail: `${item.name ?? item.id} called done, owner ${item.owner ?? '(none)'} gone`,
      });
      return { kind: 'closed' };
    } catch (error) {
      // Closed meanwhile by the finish worker or an owner's `close`: nothing of ours to report.
      if (isDogsledError(error) && error.message.startsWith('no pane ')) return { kind: 'none' };
      const keeps = error instanceof KeepsWork;
      const reason = keeps ? error.held : `close failed: ${messageOf(error)}`;
      const attempt = retry === undefined ? 0 : retry.attempt + 1;
      this.retries.set(item.id, {
        attempt,
        at_ms: backoffRetryAt(this.io.now(), attempt, this.random()),
        reason,
      });
      if (!keeps) {
        report.failures.push({
          kind: 'orphan',
          path: item.worktree ?? pane,
          branch: item.branch ?? null,
          error: squeezedLine(messageOf(error), 300),
        });
      }
      return { kind: 'kept', reason };
    }
  }

  /** items.json: orphan reasons set or cleared, closed orphans closed; true when a reason changed. */
  private async write(orphaned: Map<string, Item['orphaned']>, closed: readonly string[]): Promise<boolean> {
    const holds = await branchHolds(this.io);
    return updateItems(this.io, (current) => {
      let changed = false;
      const list = current.items.map((item) => {
        if (item.closed_ms !== null || !orphaned.has(item.id)) return item;
        const next = orphaned.get(item.id) ?? null;
        // The same reason keeps its since_ms; none before and none now writes nothing.
        if ((item.orphaned ?? null)?.reason === next?.reason) return item;
        changed = true;
        return { ...item, orphaned: next };
      });
      const closures = closed.map((id) => ({ id, reason: ORPHAN_CLOSED }));
      const applied = applyClosures({ ...current, items: list }, closures, this.io.now(), holds(list));
      return changed || applied.changed ? { result: changed, next: applied.next } : { result: false };
    });
  }

  /** The closed orphans' marks are spent, like those the finish worker closes. */
  private async closeMarks(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const now = this.io.now();
    const spent = (m: DoneMark) => ids.includes(m.id) && m.state !== 'closed';
    await updateDoneMarks(this.io, (file) => {
      if (!file.marks.some(spent)) return { result: undefined };
      const marks = file.marks.map((m) =>
        spent(m) ? { ...m, state: 'closed' as const, state_ms: now, error: 'orphaned: closed' } : m,
      );
      return { result: undefined, next: { ...file, marks } };
    });
  }

  private passOf(started_ms: number, report: OrphanReport): SweepPass {
    const cause = { request_ms: null, trigger: 'orphans' as const, error: null };
    return { ...completedPass({ started_ms, now: this.io.now() }, cause, report), orphans: report.held };
  }

  /** The pass to stderr: closures and failures always, holds when they changed. */
  private journal(pass: SweepPass, holdsChanged: boolean): void {
    const say = (text: string) => this.io.warn(`dogsled serve: orphans: ${plainLine(text)}`);
    for (const r of pass.results) {
      const branch =
        r.branch === null
          ? ''
          : r.branch_deleted
            ? ` (branch ${r.branch} deleted)`
            : ` (branch ${r.branch} kept)`;
      say(`closed ${r.detail}: ${r.path}${branch}`);
    }
    for (const f of pass.failures) say(`failed ${f.path}: ${f.error}`);
    if (holdsChanged)
      for (const h of pass.orphans ?? []) say(`held: ${h.name ?? h.item} (${h.pane ?? '-'}): ${h.reason}`);
    say(`pass done: ${sweepCountsText(sweepCounts(pass))}`);
  }

  private async herdr(): Promise<TerminalPort | undefined> {
    const { openTerminal } = await import('../../terminal/open.js');
    const port = await openTerminal({
      env: this.io.env,
      home: this.io.home,
      commandName: 'serve',
      warn: (line) => this.warnOnce(line),
    }).catch(() => undefined);
    return port === undefined || port.kind === 'headless' ? undefined : port;
  }

  private warnOnce(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.io.warn(line);
  }
}

type OrphanHost = 'local' | 'reachable' | 'unreachable';

type Outcome = { kind: 'none' } | { kind: 'closed' } | { kind: 'kept'; reason: string };

/** The child's pane: by its terminal when known (a pane id alone may have been reused). */
function findPane(listing: Listing, item: Item): Pane | undefined {
  if (item.terminal_id !== null) return listing.panes.find((p) => p.terminal_id === item.terminal_id);
  return item.pane === null ? undefined : listing.panes.find((p) => p.pane_id === item.pane);
}

function childPane(listing: Listing, pane: Pane | undefined, mark: DoneMark | undefined): ChildPane {
  if (pane === undefined) return { kind: 'gone' };
  const agent = listing.agents.find((entry) => entry.terminal_id === pane.terminal_id);
  if (agent !== undefined) {
    const ended = mark === undefined || turnEnded(mark, agent);
    return { kind: 'agent', status: agent.agent_status, turnEnded: ended };
  }
  if (pane.agent !== undefined)
    return { kind: 'agent', status: pane.agent_status ?? 'unknown', turnEnded: true };
  return { kind: 'shell' };
}

/** The watchdog's view of orphans: one line each from items.json, for every check-in on this host. */
export function orphanSource(io: StateIO): ChildSource {
  return { orphans: async () => orphanLines((await readItems(io)).items) };
}
