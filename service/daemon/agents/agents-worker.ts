// The service's agent-pane reader. Each tick asks the terminal for one listing, observes the
// agent panes (transcripts, checkouts) and carries the state and stall clocks on. A tick waits for
// the read at most `budgetMs`; a slower read keeps running for the next tick while this one
// publishes the last known panes with an error, so a hung Herdr never delays publication.

import { type ComposedPanes, composeAgentPanes, memoryOf } from '../../core/agents/agent-pane-clocks.js';
import type { AgentPane } from '../../core/agents/agent-pane-types.js';
import { STALL_TOKEN, type StallMemory, stallTokenChanges } from '../../core/agents/stall.js';
import type { WatchMap } from '../../core/cleanup/pane-watch-carry.js';
import { messageOf } from '../../core/common/errors.js';
import { JOB_AGENT } from '../../core/jobs/job-status.js';
import {
  type AgentPaneReaders,
  type LiveAgentPane,
  observeAgentPanes,
} from '../../probe/agent-pane-observe.js';
import { observeShellPanes } from '../../probe/shell-panes.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Agent, Listing } from '../../terminal/port-records.js';

export interface AgentLaneIO {
  /** Opens the terminal afresh each tick, so a Herdr that starts later is found. */
  openTerminal: () => Promise<TerminalPort>;
  /** True when Herdr is expected here (terminal/herdr-env.ts: started in it, pointed at it, or its socket exists). */
  herdrExpected: () => Promise<boolean>;
  readers: AgentPaneReaders;
  stallAfterMs: number;
  now: () => number;
  /** Longest a tick waits for the read before publishing without it. */
  budgetMs: number;
  /**
   * Where each tick's empty-prompt clocks of shell panes go (pane-watch.json), for the pane rule
   * of prune and the sweep. Without it, shell panes are not observed.
   */
  shellWatch?: {
    load: () => Promise<WatchMap>;
    save: (watch: WatchMap) => Promise<void>;
    maxGapMs: number;
  };
}

export interface AgentLaneResult {
  panes: AgentPane[];
  errors: string[];
  /** The backend of the last terminal opened (status shows it), undefined before the first. */
  terminal: { kind: string; why: string } | undefined;
}

type Observation = Awaited<ReturnType<typeof observeAgentPanes>>;

/** How long a host found without Herdr waits before looking for it again. */
const NO_HERDR_RECHECK_MS = 30_000;
/** A stall token outlives a few missed ticks, then expires if the service is gone. */
const STALL_TOKEN_TTL_MS = 60_000;

export class AgentLane {
  private memory: Map<string, StallMemory> = new Map();
  private last: AgentPane[] = [];
  private inFlight: Promise<Observation | { error: string }> | undefined;
  private shellWatch: WatchMap | undefined;
  private port: TerminalPort | undefined;
  private readonly stopping = new AbortController();
  private stallMarked: ReadonlySet<string> = new Set();
  private noHerdrUntil = 0;
  private terminal: { kind: string; why: string } | undefined;

  constructor(private readonly deps: AgentLaneIO) {}

  /** Seeds the clocks from the last published snapshot, so a restart keeps stall times. */
  restore(panes: readonly AgentPane[]): void {
    this.memory = memoryOf(panes);
    this.last = [...panes];
  }

  /** Abandons a read still waiting on Herdr, so a stopping service exits at once. */
  close(): void {
    this.stopping.abort();
  }

  async tick(): Promise<AgentLaneResult> {
    this.inFlight ??= this.read().finally(() => {
      this.inFlight = undefined;
    });
    const outcome = await Promise.race([this.inFlight, budget(this.deps.budgetMs)]);
    if (outcome === TIMED_OUT) {
      const seconds = Math.round(this.deps.budgetMs / 1000);
      return {
        panes: this.last,
        errors: [`herdr: no answer within ${seconds}s; agent panes are from the last tick`],
        terminal: this.terminal,
      };
    }
    if ('error' in outcome) return { panes: this.last, errors: [outcome.error], terminal: this.terminal };
    const composed: ComposedPanes = composeAgentPanes(
      outcome.panes,
      this.memory,
      this.deps.now(),
      this.deps.stallAfterMs,
    );
    this.memory = composed.memory;
    this.last = composed.panes;
    const tokenErrors = await this.reportStalls(composed.panes);
    return { panes: composed.panes, errors: [...outcome.errors, ...tokenErrors], terminal: this.terminal };
  }

  private async read(): Promise<Observation | { error: string }> {
    // A host without Herdr looks again only now and then: detection costs a stat per PATH entry.
    if (this.deps.now() < this.noHerdrUntil) return { panes: [], errors: [] };
    let port: TerminalPort;
    try {
      // A Herdr port is kept while it answers; a failure means looking again next tick.
      port = this.port ?? (await this.deps.openTerminal());
    } catch (error) {
      return { error: `herdr: ${messageOf(error)}` };
    }
    this.terminal = { kind: port.kind, why: port.why };
    if (port.kind === 'headless') {
      this.port = undefined;
      // No Herdr at all is a normal host without agents; a Herdr that was asked for and failed is not.
      if (await this.deps.herdrExpected()) return { error: `herdr: ${port.why}` };
      this.noHerdrUntil = this.deps.now() + NO_HERDR_RECHECK_MS;
      return { panes: [], errors: [] };
    }
    try {
      const listing = await port.listAll({ signal: this.stopping.signal });
      this.port = port;
      const [observed, shellErrors] = await Promise.all([
        observeAgentPanes(listing.agents.flatMap(liveAgentPane), this.deps.readers),
        this.watchShells(port, listing),
      ]);
      return { panes: observed.panes, errors: [...observed.errors, ...shellErrors] };
    } catch (error) {
      this.port = undefined;
      return { error: `herdr: ${messageOf(error)}` };
    }
  }

  /** Sets the `$dogsled` token on stalled panes and clears it on recovered ones. */
  private async reportStalls(panes: readonly AgentPane[]): Promise<string[]> {
    const port = this.port;
    if (!port) return [];
    const changes = stallTokenChanges(panes, this.stallMarked);
    const ttlMs = Math.max(STALL_TOKEN_TTL_MS, 3 * this.deps.budgetMs);
    const report = (pane: AgentPane, value: string | null) =>
      port.reportPaneMetadata(pane.pane, {
        source: STALL_TOKEN.source,
        tokens: { [STALL_TOKEN.key]: value },
        ...(value === null ? {} : { ttlMs }),
      });
    const results = await Promise.allSettled([
      ...changes.set.map((pane) => report(pane, STALL_TOKEN.value)),
      ...changes.clear.map((pane) => report(pane, null)),
    ]);
    this.stallMarked = changes.marked;
    return results.flatMap((result) =>
      result.status === 'rejected' ? [`herdr: stall token: ${messageOf(result.reason)}`] : [],
    );
  }

  private async watchShells(port: TerminalPort, listing: Listing): Promise<string[]> {
    const watch = this.deps.shellWatch;
    if (!watch) return [];
    this.shellWatch ??= await watch.load();
    const observed = await observeShellPanes({
      port,
      listing,
      previous: this.shellWatch,
      now: this.deps.now(),
      maxGapMs: watch.maxGapMs,
    });
    this.shellWatch = observed.watch;
    await watch.save(observed.watch);
    return observed.errors;
  }
}

/**
 * Agents whose kind Herdr has not detected yet (a launch still pending) are not listed, and neither
 * are job panes: exec reports them to Herdr for the sidebar, but a job is not a coding agent and must
 * not count as one in headroom.
 */
function liveAgentPane(agent: Agent): LiveAgentPane[] {
  if (!agent.agent || agent.agent === JOB_AGENT.agent) return [];
  const session = agent.agent_session;
  return [
    {
      pane: agent.pane_id,
      terminal_id: agent.terminal_id,
      agent: agent.agent,
      state: agent.agent_status,
      name: agent.name ?? null,
      completion_seq: agent.state_change_seq,
      cwd: agent.foreground_cwd ?? agent.cwd ?? null,
      session: session ? { kind: session.kind, value: session.value } : null,
    },
  ];
}

const TIMED_OUT = Symbol('timed out');

function budget(ms: number): Promise<typeof TIMED_OUT> {
  return new Promise((resolve) => setTimeout(() => resolve(TIMED_OUT), ms).unref());
}
