// `herdr agent start` for one launch, tried up to three times with the shared backoff (the rule is
// core/agent-start.ts). Every try is counted in the launch record before Herdr is called, so a crash
// mid-call leaves evidence that something may have been typed. After an unknown outcome the next try
// first reads the pane: a child of our kind already there is adopted, never typed again. A pane that
// is gone after an unknown outcome is judged by what the child left (start-evidence.ts): a child that
// ran and finished before Herdr confirmed its start (its own `done` closed the pane) started.

import { setTimeout as sleep } from 'node:timers/promises';
import type { LaunchRecord } from '../core/agents/launch-types.js';
import {
  afterTry,
  type PaneNow,
  type Reconciled,
  reconcile,
  type SignOfLife,
  type TryOutcome,
} from '../core/agents/start-tries-rule.js';
import { messageOf } from '../core/common/errors.js';
import { squeezedLine, stripEscapes } from '../core/text/clean.js';
import type { StateIO } from '../state/io.js';
import { updateLaunchRecord } from '../state/records/launch-files.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Agent } from '../terminal/port-records.js';
import { isFinalRefusal, isTerminalError, TerminalError } from '../terminal/terminal-errors.js';
import type { Deadline } from '../time/deadline.js';
import { startSigns } from './start-evidence.js';

/** Herdr's own start deadline bounds (CONTRACT §4.3 #10). */
const START_TIMEOUT_MIN_MS = 3_001;
const START_TIMEOUT_MAX_MS = 300_000;
/** Herdr's default readiness wait; a child that works at once is reconciled by the next try. */
const START_TIMEOUT_MS = 30_000;
/** Lines of the pane a failed start reports. */
const RECENT_LINES = 20;

export interface StartTriesIO extends StateIO {
  home: string;
  port: TerminalPort;
  deadline: Deadline;
  /** A draw in [0, 1) for the backoff's jitter. */
  random: () => number;
  /** Shrinks the backoff in tests (the LAUNCH_BACKOFF_SCALE knob); 1 in production. */
  backoffScale: number;
}

export interface StartWhat {
  launch: string;
  name: string;
  kind: string;
  pane: string;
  terminal: string;
  args: string[];
  /** The owner's item, the record's creation, the child's directory and task file (its signs of life). */
  item: string | null;
  createdMs: number;
  cwd: string;
  taskFile: string;
}

export type StartResult =
  | { kind: 'started'; agent: Agent | null; record: LaunchRecord }
  | { kind: 'refused' | 'failed' | 'unknown'; error: string; record: LaunchRecord };

export async function startWithTries(io: StartTriesIO, what: StartWhat): Promise<StartResult> {
  let tries = 0;
  let last: TryOutcome | undefined;
  let agent: Agent | null = null;
  for (;;) {
    let outcome: TryOutcome;
    const verdict = last?.kind === 'unknown' ? await judge(io, what) : null;
    if (verdict?.kind === 'finished') return finished(io, what, verdict.signs);
    if (verdict?.kind === 'adopt') {
      outcome = { kind: 'started' };
    } else if (verdict?.kind === 'unknown') {
      tries += 1;
      await record(io, what.launch, (r) => ({ ...r, attempts: tries }));
      outcome = verdict;
    } else {
      tries += 1;
      await record(io, what.launch, (r) => ({ ...r, attempts: tries, state: 'preparing' }));
      ({ outcome, agent } = await tryOnce(io, what));
      if (outcome.kind === 'unknown') {
        // A pane already gone needs no backoff: a child that ran left its signs before its pane
        // went (its done mark comes before the service closes it). Without any, or when this read
        // fails, the next try looks again.
        const now = await judge(io, what).catch(() => null);
        if (now?.kind === 'finished') return finished(io, what, now.signs);
      }
    }
    if (outcome.kind === 'started') {
      const started = await record(io, what.launch, (r) => ({
        ...r,
        state: 'started',
        started_ms: io.now(),
        error: null,
      }));
      return { kind: 'started', agent, record: started };
    }
    last = outcome;
    const next = afterTry(outcome, tries, io.deadline.remaining(), io.random(), io.backoffScale);
    if (next.kind === 'retry') {
      await record(io, what.launch, (r) => ({
        ...r,
        state: 'unknown',
        error: outcome.error,
        try_errors: [...(r.try_errors ?? []), outcome.error],
      }));
      await sleep(next.waitMs);
      continue;
    }
    const recent = await recentOutput(io.port, what.pane);
    // A refusal typed nothing; after the last try the launch is over (the pane rule may close an
    // empty shell); a deadline that cut an unknown try short leaves it unknown for cleanup to judge.
    const state = next.why === 'refused' ? 'refused' : next.why === 'tries' ? 'failed' : 'unknown';
    const why = next.why === 'deadline' ? `${outcome.error} (no time left for another try)` : outcome.error;
    const done = await record(io, what.launch, (r) => ({
      ...r,
      state,
      error: why,
      try_errors: [...(r.try_errors ?? []), outcome.error],
      recent_output: recent,
    }));
    return { kind: state, error: why, record: done };
  }
}

async function tryOnce(
  io: StartTriesIO,
  what: StartWhat,
): Promise<{ outcome: TryOutcome; agent: Agent | null }> {
  const allowed = Math.floor(io.deadline.allowance('setup'));
  const timeoutMs = Math.max(START_TIMEOUT_MIN_MS, Math.min(START_TIMEOUT_MAX_MS, START_TIMEOUT_MS, allowed));
  try {
    const started = await io.port.startAgent({
      name: what.name,
      kind: what.kind,
      paneId: what.pane,
      args: what.args,
      timeoutMs,
      signal: AbortSignal.timeout(Math.max(allowed, 1)),
    });
    return { outcome: { kind: 'started' }, agent: started.agent };
  } catch (error) {
    const text = squeezedLine(errorText(error));
    if (isFinalRefusal(error)) return { outcome: { kind: 'refused', error: text }, agent: null };
    return { outcome: { kind: 'unknown', error: text }, agent: null };
  }
}

/** Herdr's code first (`agent_pane_busy: ...`), so the record says what kind of failure it was. */
function errorText(error: unknown): string {
  if (error instanceof TerminalError) {
    const code = error.herdrCode ?? error.code;
    return `${code}: ${error.message}`;
  }
  return messageOf(error);
}

/** The pane as it is now, reconciled; a pane gone is judged by the signs its child left here. */
async function judge(io: StartTriesIO, what: StartWhat): Promise<Reconciled> {
  const pane = await paneNow(io.port, what);
  if (pane.sameTerminal) return reconcile(pane, what.kind);
  const signs = await startSigns(io, {
    id: what.launch,
    item: what.item,
    terminal: what.terminal,
    createdMs: what.createdMs,
    kind: what.kind,
    cwd: what.cwd,
    taskFile: what.taskFile,
  });
  return reconcile(pane, what.kind, signs);
}

/** The child ran and its pane is gone: the launch started, and what proved it is recorded. */
async function finished(io: StartTriesIO, what: StartWhat, signs: SignOfLife[]): Promise<StartResult> {
  const started = await record(io, what.launch, (r) => ({
    ...r,
    state: 'started',
    started_ms: io.now(),
    error: null,
    start_evidence: signs,
  }));
  return { kind: 'started', agent: null, record: started };
}

/** The pane as it is now, for reconcile; a pane Herdr no longer has is a changed terminal. */
async function paneNow(port: TerminalPort, what: StartWhat): Promise<PaneNow> {
  const gone: PaneNow = { sameTerminal: false, agent: null, shellAvailable: false };
  let terminal: string;
  try {
    terminal = (await port.getPane(what.pane)).terminal_id;
  } catch (error) {
    if (isTerminalError(error, 'pane_not_found')) return gone;
    throw error;
  }
  if (terminal !== what.terminal) return gone;
  const agent = await port.getAgent(what.pane).catch((error: unknown) => {
    if (isTerminalError(error, 'agent_not_found') || isTerminalError(error, 'pane_not_found')) return null;
    throw error;
  });
  if (agent !== null && agent.terminal_id === what.terminal) {
    return {
      sameTerminal: true,
      agent: {
        kind: agent.agent ?? null,
        ready: agent.interactive_ready === true,
        pending: agent.launch_pending === true,
        status: agent.agent_status,
      },
      shellAvailable: false,
    };
  }
  const info = await port.processInfo(what.pane).catch(() => null);
  const alone =
    info !== null &&
    info.shell_pid !== undefined &&
    info.foreground_process_group_id === info.shell_pid &&
    info.foreground_processes.every((proc) => proc.pid === info.shell_pid);
  return { sameTerminal: true, agent: null, shellAvailable: alone };
}

/** The pane's last lines, escapes stripped; null when the read fails (the error stays the cause). */
export async function recentOutput(port: TerminalPort, pane: string): Promise<string | null> {
  try {
    const read = await port.readPane(pane, { source: 'recent', lines: RECENT_LINES, format: 'text' });
    const text = stripEscapes(read.text)
      .split('\n')
      .map((line) => line.trimEnd())
      .filter((line, index, all) => line !== '' || index < all.length - 1)
      .slice(-RECENT_LINES)
      .join('\n')
      .trim();
    return text === '' ? null : text;
  } catch {
    return null;
  }
}

function record(
  io: StateIO,
  launch: string,
  change: (record: LaunchRecord) => LaunchRecord,
): Promise<LaunchRecord> {
  return updateLaunchRecord(io, launch, change);
}
