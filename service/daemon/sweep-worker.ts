// The service's sweep worker (spec, "The sweep in serve"): a pass runs only when sweep-request.json
// owes one, looked at on start, on a poke through sweep.sock and on every publication interval. A
// pass applies the doctor plan in sweep scope (core/sweep.ts) with prune's rechecks, records
// sweep.json and sweeps.jsonl, writes its journal to stderr, and only then marks the request
// answered, so a crash mid-pass runs it again. The socket is optional: a path that is taken by
// a file or directory, or a bind that fails, is one warning and the interval still finds requests.

import { unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import {
  completedPass,
  type PassEntries,
  requestOwed,
  type SweepSelf,
  sweepCounts,
  sweepCountsText,
  sweepScope,
} from '../core/cleanup/sweep-rule.js';
import type { SweepPass } from '../core/cleanup/sweep-types.js';
import { messageOf } from '../core/common/errors.js';
import { plainLine } from '../core/text/clean.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { bindServiceSocket } from '../state/engine/private-socket.js';
import { recordSweep } from '../sweep/sweep-files.js';
import { markSweepHandled, readSweepRequest } from '../sweep/sweep-request.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import type { OrphanReport } from './agents/orphans-pass.js';
import { runLoop } from './work-loop.js';
import type { WorkerIO } from './worker-io.js';

export interface SweepIO extends WorkerIO {
  /** The service's own directory: its checkout is held like a caller's. */
  cwd: string;
  /**
   * The orphan check (orphans.ts: children that called done, whose owner is gone and whose checkout
   * passes the loss rule); its closures, failures and holds join the pass. Without it there are none.
   */
  closeOrphans?: () => Promise<OrphanReport>;
}

/** How long after a poke through sweep.sock the pass starts (README, "The sweep in serve"). */
export const SWEEP_POKE_SETTLE_MS = 250;

const EMPTY_REPORT: OrphanReport = { results: [], skipped: [], failures: [], held: [] };

export class SweepWorker {
  constructor(private readonly io: SweepIO) {}

  /** One pass when a request is owed; undefined when none is (no request, no survey). */
  async pass(): Promise<SweepPass | undefined> {
    const { io } = this;
    const request = await readSweepRequest(io);
    if (!requestOwed(request)) return undefined;
    const started_ms = io.now();
    const self: SweepSelf = { pane: callerPane(io.env), workspace: null, cwd: io.cwd };
    let pass: SweepPass;
    try {
      const { sweepCleanup } = await import('../cleanup/session.js');
      const run = await sweepCleanup(io, { cwd: io.cwd }, LOCAL_HOST.id, (plan) => sweepScope(plan, self));
      const orphans = io.closeOrphans ? await io.closeOrphans() : EMPTY_REPORT;
      pass = this.passOf(started_ms, request.requested_ms, null, {
        results: [...run.report.results, ...orphans.results],
        skipped: [...run.report.skipped, ...orphans.skipped],
        failures: [...run.report.failures, ...orphans.failures],
      });
      pass.warnings = run.warnings;
      pass.landed_dirty = run.landed_dirty;
      pass.unlinked = run.unlinked;
      pass.orphans = orphans.held;
    } catch (error) {
      pass = this.passOf(started_ms, request.requested_ms, messageOf(error), EMPTY_REPORT);
    }
    await recordSweep(io, pass);
    this.journal(pass);
    await markSweepHandled(io, request.requested_ms);
    return pass;
  }

  private passOf(
    started_ms: number,
    request_ms: number,
    error: string | null,
    entries: PassEntries,
  ): SweepPass {
    return completedPass(
      { started_ms, now: this.io.now() },
      { request_ms, trigger: 'request', error },
      entries,
    );
  }

  /** Removals, failures, warnings and holds to stderr, one escape-free line each. */
  private journal(pass: SweepPass): void {
    const say = (text: string) => this.io.warn(`dogsled serve: sweep: ${plainLine(text)}`);
    if (pass.error !== null) say(`pass failed: ${pass.error}`);
    for (const r of pass.results) {
      // A branch's path is its repository: the same line as prune's.
      if (r.kind === 'branch' && r.branch !== null) {
        say(`removed branch ${r.branch} in ${r.path}`);
        continue;
      }
      const branch = r.branch_deleted && r.branch !== null ? ` (branch ${r.branch} deleted)` : '';
      say(`removed ${r.kind} ${r.path}${r.already_removed ? ' (already gone)' : ''}${branch}`);
    }
    for (const f of pass.failures) say(`failed ${f.kind} ${f.path}: ${f.error}`);
    for (const s of pass.skipped) say(`skipped: ${s.kind} ${s.path}: ${s.reason}`);
    for (const w of pass.warnings) say(`warning: ${w}`);
    for (const h of pass.unlinked) say(`held: ${h.reason}`);
    for (const d of pass.landed_dirty)
      say(`held: ${d.checkout} is landed but dirty (${d.dirty} ${d.dirty === 1 ? 'path' : 'paths'})`);
    for (const o of pass.orphans ?? [])
      say(`held: orphan ${o.name ?? o.item} (${o.pane ?? '-'}): ${o.reason}`);
    say(`pass done: ${sweepCountsText(sweepCounts(pass))}`);
  }
}

/** Binds sweep.sock for wake-ups; undefined (after one warning) when it cannot. */
async function bindWake(io: SweepIO, poke: () => void): Promise<Server | undefined> {
  const path = io.paths.sweepSock;
  const warn = (why: string) =>
    io.warn(`dogsled serve: sweep: warning: sweep.sock ${why}; requests are picked up every interval`);
  const server = createServer((connection) => {
    connection.on('error', () => connection.destroy());
    connection.resume();
    connection.end();
    poke();
  });
  // 0600 like every state file: only this user may wake the service.
  return (await bindServiceSocket(server, path, warn)) ? server : undefined;
}

/** Runs the sweep worker at the publication pace until the signal aborts; sweep.sock pokes it. */
export function startSweepWorker(
  io: SweepIO,
  signal: AbortSignal,
  report: (error: string | undefined) => void,
): { stop: () => Promise<void> } {
  const stopper = new AbortController();
  const worker = new SweepWorker(io);
  let server: Server | undefined;
  const done = runLoop({
    name: 'sweep',
    paceMs: io.paceMs ?? 10_000,
    minGapMs: 250,
    // The poke comes from an agent's Stop hook on its way out, while its harness ends the turn: a
    // pass started at once (a survey of every checkout) would take a core from both, and on a busy
    // host that showed in every Stop. A quarter second later they are done, and a burst of Stops
    // (a fleet of children finishing together) is one pass.
    settleMs: SWEEP_POKE_SETTLE_MS,
    signal: AbortSignal.any([signal, stopper.signal]),
    warn: io.warn,
    onPoke: (poke) => {
      void bindWake(io, poke).then((bound) => {
        server = bound;
        if (bound && stopper.signal.aborted) {
          bound.close();
          // Bound under a private name and renamed: close does not remove the path itself.
          void unlink(io.paths.sweepSock).catch(() => undefined);
        }
      });
    },
    pass: async () => {
      try {
        await worker.pass();
        report(undefined);
      } catch (error) {
        report(`sweep: ${messageOf(error)}`);
        throw error;
      }
    },
  });
  return {
    stop: async () => {
      stopper.abort();
      await done;
      if (server) {
        await new Promise<void>((resolve) => server?.close(() => resolve()));
        await unlink(io.paths.sweepSock).catch(() => undefined);
      }
    },
  };
}
