// The service's completion worker: closes a job item once its job has ended, and any item whose pane
// is gone from a Herdr listing that answered (never when Herdr cannot be read, and never by panes on
// headless, where a job item has no pane). It also finalizes started jobs whose exec wrapper died
// (reconcileJob), ends jobs exec never started within NEVER_STARTED_MS, so their items close too,
// ends the reservation and removes the saved environment of every ended job (exec does both itself;
// this covers a job that ended without it: wrapper lost, never started, stopped after its wrapper
// died), removes ended jobs and their logs 24 hours after they ended, and drops items closed more
// than a day ago, with their agent reports, but a child's whose branch still has work to land
// (branches.json; unreadable, none is dropped).

import {
  applyClosures,
  type Closure,
  expiredReportTerminals,
  isExpiredItem,
  isOpen,
  JOB_RECORD_GONE,
  jobEndedReason,
  PANE_GONE,
  paneGone,
  type SeenPanes,
} from '../../core/agents/item-closing.js';
import type { Item } from '../../core/agents/item-types.js';
import { messageOf } from '../../core/common/errors.js';
import { expiredJobs } from '../../core/jobs/job-expiry.js';
import { NEVER_STARTED, neverStarted } from '../../core/jobs/job-status.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import { LOCAL_HOST } from '../../hosts/local-facts.js';
import { readPeerEntry } from '../../hosts/peer-cache.js';
import { endReservations } from '../../hosts/reserve-room.js';
import { reconcileJob } from '../../jobs/reconcile.js';
import { dirNames } from '../../state/engine/dir-names.js';
import { removeAgentReport } from '../../state/records/agent-reports.js';
import { branchHolds } from '../../state/records/branch-observations.js';
import { readDoneMarks } from '../../state/records/done-marks.js';
import { jobEnvPath, removeEnvFile } from '../../state/records/env-files.js';
import { readJobRecord, removeJob, updateJobRecord } from '../../state/records/job-records.js';
import { readItems, updateItems } from '../../state/records/queue-items.js';
import type { WorkerIO } from '../worker-io.js';

/** How long one Herdr listing may take before this pass judges no panes. */
const LISTING_TIMEOUT_MS = 10_000;

interface JobScan {
  records: Map<string, JobRecord>;
  /** Every job id with a record file, readable or not: an item's job absent from it is gone. */
  present: Set<string>;
}

export class CompletionWorker {
  /** Ended records never change again, so they are read once per service run. */
  private readonly ended = new Map<string, JobRecord>();
  /** Ended jobs whose reservation and environment are known to be gone. */
  private readonly released = new Set<string>();
  private readonly warned = new Set<string>();

  private readonly deps: WorkerIO;

  constructor(deps: WorkerIO) {
    this.deps = deps;
  }

  /** One pass; returns the items it closed. */
  async pass(): Promise<Item[]> {
    const { deps } = this;
    // Items first, then records and panes: whatever an item names already existed when it was read.
    const items = await readItems(deps);
    const open = items.items.filter(isOpen);
    const jobs = await this.scanJobs();
    const closures: Closure[] = [];
    // A job on a peer: its record and pane live there; its end is read from the peer cache.
    const remote = open.filter((item) => item.host !== LOCAL_HOST.id);
    closures.push(...(await this.remoteClosures(remote)));
    for (const item of open) {
      if (item.job === null || jobs === undefined || item.host !== LOCAL_HOST.id) continue;
      const record = jobs.records.get(item.job);
      if (record?.ended_ms != null) closures.push({ id: item.id, reason: jobEndedReason(record) });
      else if (record === undefined && !jobs.present.has(item.job))
        closures.push({ id: item.id, reason: JOB_RECORD_GONE });
    }
    const closing = new Set(closures.map((c) => c.id));
    // A child that called done is the finish worker's to close (with its reply), not a gone pane.
    const finishing = await this.finishing();
    const watched = open.filter(
      (i) =>
        i.host === LOCAL_HOST.id &&
        !closing.has(i.id) &&
        !finishing.has(i.id) &&
        (i.pane !== null || i.terminal_id !== null),
    );
    const seen = watched.length > 0 ? await this.seenPanes() : undefined;
    if (seen) {
      for (const item of watched) {
        if (paneGone(item, seen)) closures.push({ id: item.id, reason: await this.goneReason(item) });
      }
    }
    const now = deps.now();
    // A child's branch with work to land keeps its item (and so its TO LAND row) past a day.
    const holding = await branchHolds(deps);
    const held = holding(items.items);
    await this.expireReports(items.items, now, held);
    if (closures.length === 0 && !items.items.some((item) => isExpiredItem(item, now, held))) return [];
    return updateItems(deps, (current) => {
      const { next, closed, changed } = applyClosures(current, closures, deps.now(), holding(current.items));
      return changed ? { result: closed, next } : { result: closed };
    });
  }

  /** Items with a done mark the finish worker has not closed yet; none when done.json cannot be read. */
  private async finishing(): Promise<Set<string>> {
    try {
      const marks = (await readDoneMarks(this.deps)).marks;
      return new Set(marks.flatMap((m) => (m.state !== 'closed' && m.item !== null ? [m.item] : [])));
    } catch (error) {
      this.warnOnce(messageOf(error));
      return new Set();
    }
  }

  /** Reads the records that may still change, finalizing those whose wrapper died. */
  /** Items of jobs on peers whose cached snapshot shows the job ended; a peer not cached closes none. */
  private async remoteClosures(items: readonly Item[]): Promise<Closure[]> {
    const closures: Closure[] = [];
    for (const item of items) {
      if (item.job === null) continue;
      const entry = await readPeerEntry(this.deps, item.host).catch(() => undefined);
      const job = entry?.reply?.jobs?.find((summary) => summary.id === item.job);
      if (job?.ended_ms != null) closures.push({ id: item.id, reason: jobEndedReason(job) });
    }
    return closures;
  }

  private async scanJobs(): Promise<JobScan | undefined> {
    let names: string[];
    try {
      names = dirNames(this.deps.paths.jobs) ?? [];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') names = [];
      else return undefined;
    }
    const present = new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length)));
    for (const id of this.ended.keys()) if (!present.has(id)) this.ended.delete(id);
    const records = new Map(this.ended);
    for (const id of present) {
      if (this.ended.has(id)) continue;
      let record: JobRecord;
      try {
        record = await readJobRecord(this.deps.paths, id);
        if (record.started_ms !== null && record.ended_ms === null)
          record = await reconcileJob(this.deps, record);
        else if (neverStarted(record, this.deps.now())) record = await this.endNeverStarted(id, record);
      } catch (error) {
        this.warnOnce(`job ${id}: ${messageOf(error)}`);
        continue;
      }
      records.set(id, record);
      if (record.ended_ms !== null) this.ended.set(id, record);
    }
    await this.release([...records.values()]);
    await this.expire(records);
    return { records, present };
  }

  /** Ends the reservations and removes the environments of jobs that ended, once per service run. */
  private async release(records: readonly JobRecord[]): Promise<void> {
    const fresh = records.filter((r) => r.ended_ms !== null && !this.released.has(r.id));
    if (fresh.length === 0) return;
    // An environment file that cannot go (a directory in its place) is reported, never a reason
    // to keep the room booked.
    for (const record of fresh) {
      await removeEnvFile(jobEnvPath(this.deps.paths, record.id)).catch((error: unknown) =>
        this.warnOnce(messageOf(error)),
      );
    }
    try {
      const reservations = fresh.flatMap((r) => (r.reservation ? [r.reservation] : []));
      await endReservations(this.deps, reservations);
    } catch (error) {
      // Tried again next pass; a reservation ends at its TTL anyway.
      this.warnOnce(messageOf(error));
      return;
    }
    for (const record of fresh) this.released.add(record.id);
  }

  /** Ended jobs expire with their logs 24 hours after they ended (prune removes them too). */
  private async expire(records: Map<string, JobRecord>): Promise<void> {
    const now = this.deps.now();
    for (const record of expiredJobs([...records.values()], now)) {
      try {
        await removeJob(this.deps.paths, record.id);
      } catch (error) {
        this.warnOnce(messageOf(error));
        continue;
      }
      this.ended.delete(record.id);
      this.released.delete(record.id);
    }
  }

  /**
   * The agent reports of items that expire in this pass go first: once the items are dropped nothing
   * says whose a report was. One that cannot go is reported and kept (never removed recursively).
   */
  private async expireReports(items: readonly Item[], now: number, held: ReadonlySet<string>): Promise<void> {
    for (const terminal of expiredReportTerminals(items, now, held)) {
      await removeAgentReport(this.deps.paths.dir, terminal).catch((error: unknown) =>
        this.warnOnce(messageOf(error)),
      );
    }
  }

  /** Ends a record exec never started (rechecked under its lock: exec may have just claimed it). */
  private async endNeverStarted(id: string, seen: JobRecord): Promise<JobRecord> {
    return updateJobRecord(this.deps, id, (current) => {
      if (current === undefined || !neverStarted(current, this.deps.now()))
        return { result: current ?? seen };
      const next: JobRecord = { ...current, ended_ms: this.deps.now(), reason: NEVER_STARTED };
      return { result: next, next };
    });
  }

  /** The panes of a Herdr listing, or undefined when Herdr is absent or did not answer in time. */
  private async seenPanes(): Promise<SeenPanes | undefined> {
    const { deps } = this;
    try {
      const { openTerminal } = await import('../../terminal/open.js');
      const port = await openTerminal({
        env: deps.env,
        home: deps.home,
        commandName: 'serve',
        timeoutMs: LISTING_TIMEOUT_MS,
        warn: (line) => this.warnOnce(line),
      });
      if (port.kind === 'headless') return undefined;
      const listing = await port.listAll({ signal: AbortSignal.timeout(LISTING_TIMEOUT_MS) });
      return {
        panes: new Set(listing.panes.map((p) => p.pane_id)),
        terminals: new Set(listing.panes.map((p) => p.terminal_id)),
      };
    } catch {
      return undefined;
    }
  }

  /** A job pane usually goes because its job ended and exec closed it: then that is the reason. */
  private async goneReason(item: Item): Promise<string> {
    if (item.job === null) return PANE_GONE;
    try {
      const record = await readJobRecord(this.deps.paths, item.job);
      return record.ended_ms === null ? PANE_GONE : jobEndedReason(record);
    } catch {
      return PANE_GONE;
    }
  }

  private warnOnce(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.deps.warn(line.startsWith('dogsled') ? line : `dogsled serve: completion: ${line}`);
  }
}
