// Agent lifecycle per terminal (§1.2-§1.3, §4.4). A pane hosts an agent when its foreground job is
// a known agent process, or when an integration reported one (`pane.report_agent`) while the
// current foreground job runs; it ends on release or when that job ends. Displayed status: idle
// that was not seen is `done`; a plain shell is `unknown`. `state_change_seq` counts lifecycle
// changes. A named launch is pending until settle time has passed with the requested kind
// detected and idle/blocked (then interactive_ready), and its name is released on failure.
import { EventEmitter } from 'node:events';
import { jobKind } from './detect.mjs';
import { readStat } from './procfs.mjs';

const OUTPUT_DEBOUNCE_MS = 20;

export class AgentTracker extends EventEmitter {
  #timer;

  constructor(model) {
    super();
    this.setMaxListeners(0);
    this.model = model;
  }

  start() {
    this.#timer = setInterval(() => this.refreshAll(), this.model.options.detectMs);
    this.#timer.unref?.();
  }

  stop() {
    clearInterval(this.#timer);
  }

  attach(pane) {
    pane.agent = {
      detected: undefined,
      detectedKey: undefined,
      report: undefined,
      session: undefined,
      reportSeqs: new Map(),
      state: 'unknown',
      seen: true,
      seq: 0,
      name: undefined,
      launch: undefined,
      ready: false,
      forcedBusy: false,
      lastStatus: 'unknown',
      lastKind: undefined,
      outputTimer: undefined,
    };
  }

  detach(pane) {
    clearTimeout(pane.agent.outputTimer);
    for (const timer of pane.agent.launch?.timers ?? []) clearTimeout(timer);
    this.emit('change', pane);
  }

  onOutput(pane) {
    if (pane.agent.outputTimer) return;
    pane.agent.outputTimer = setTimeout(() => {
      pane.agent.outputTimer = undefined;
      if (!pane.closed) this.refresh(pane);
    }, OUTPUT_DEBOUNCE_MS);
  }

  // ---- reading -------------------------------------------------------------------------------

  kind(pane) {
    return pane.agent.report?.agent ?? pane.agent.detected;
  }

  /** The foreground job's process group when it is not the shell itself, else undefined. */
  jobOf(pane) {
    const pid = pane.terminal.process.pid;
    if (pid === undefined || pane.terminal.process.exited) return undefined;
    const stat = readStat(pid);
    if (!stat || stat.tpgid <= 0 || stat.tpgid === pid) return undefined;
    return stat.tpgid;
  }

  /** Everything the records need, derived from the current state. */
  view(pane) {
    const a = pane.agent;
    const kind = this.kind(pane);
    let status = 'unknown';
    if (kind) status = a.state === 'idle' && !a.seen ? 'done' : a.state;
    return {
      kind,
      status,
      name: a.name,
      session: kind ? a.session : undefined,
      launchPending: a.launch !== undefined,
      interactiveReady: a.ready,
      stateChangeSeq: a.seq,
    };
  }

  /** Hosts an agent for `agent.start`/`agent.list` purposes: detected, reported or pending. */
  hosts(pane) {
    return this.kind(pane) !== undefined || pane.agent.launch !== undefined || pane.agent.name !== undefined;
  }

  // ---- changes -------------------------------------------------------------------------------

  /** Runs `mutate`, then announces what changed (events, seq, revision). */
  change(pane, mutate) {
    mutate();
    const a = pane.agent;
    const view = this.view(pane);
    let changed = false;
    if (view.kind !== a.lastKind) {
      const released = view.kind === undefined;
      this.model.events.emit('pane_agent_detected', {
        pane_id: pane.id,
        workspace_id: pane.workspaceId,
        agent: released ? a.lastKind : view.kind,
        released: released || undefined,
        final_status: released ? a.lastStatus : undefined,
      });
      a.lastKind = view.kind;
      changed = true;
    }
    if (view.status !== a.lastStatus) {
      a.lastStatus = view.status;
      changed = true;
      this.model.events.emitAgentStatus(this.statusEvent(pane));
    }
    if (changed) {
      a.seq += 1;
      this.touch(pane);
    }
    this.emit('change', pane);
  }

  /** Data of a pane.agent_status_changed line. */
  statusEvent(pane) {
    const view = this.view(pane);
    const terminal = pane.terminal;
    const data = { pane_id: pane.id, workspace_id: pane.workspaceId, agent_status: view.status };
    if (view.kind) data.agent = view.kind;
    if (terminal.title) data.title = terminal.title;
    if (terminal.displayAgent) data.display_agent = terminal.displayAgent;
    if (terminal.stateLabels) data.state_labels = terminal.stateLabels;
    return data;
  }

  /** A pane record changed: bump its revision and announce it. */
  touch(pane) {
    pane.terminal.revision += 1;
    this.model.events.emit('pane_updated', { pane: this.model.paneInfo(pane) });
  }

  /** Semantic state change with Herdr's seen rules. */
  setState(pane, state) {
    const a = pane.agent;
    if (state === a.state) return;
    if (state === 'working' || state === 'blocked') a.seen = true;
    else if (state === 'idle' && (a.state === 'working' || a.state === 'blocked')) {
      a.seen = this.model.isPaneActive(pane);
    }
    a.state = state;
  }

  markSeen(pane) {
    if (pane.agent.seen) return;
    this.change(pane, () => {
      pane.agent.seen = true;
    });
  }

  // ---- detection -----------------------------------------------------------------------------

  refreshAll() {
    for (const pane of this.model.allPanes()) this.refresh(pane);
  }

  /** Re-reads the pane's foreground job and applies what follows from it. */
  refresh(pane) {
    if (pane.closed) return;
    const a = pane.agent;
    const job = this.jobOf(pane);
    let detected;
    if (job !== undefined) {
      // A positive result is kept for the job's lifetime: a /proc read that fails or sees a process
      // mid-exec is temporary uncertainty, which never clears an agent (Herdr §1.2). A negative
      // result is retried, since wrappers exec the agent later.
      detected = job === a.detectedKey && a.detected ? a.detected : jobKind(job);
      a.detectedKey = job;
    }
    this.change(pane, () => {
      const before = this.kind(pane);
      a.detected = detected;
      if (a.report && a.report.job !== job) a.report = undefined;
      this.#afterKindChange(pane, before);
      this.#evaluateLaunch(pane);
    });
  }

  #afterKindChange(pane, before) {
    const a = pane.agent;
    const kind = this.kind(pane);
    if (kind === before) return;
    if (kind === undefined) {
      a.state = 'unknown';
      a.seen = true;
      a.ready = false;
      a.session = undefined;
      if (!a.launch) a.name = undefined;
    } else if (before === undefined) {
      a.state = a.report ? a.report.state : this.model.config.detected_status;
      a.seen = true;
    } else if (a.name && !a.launch) {
      // Replaced by another agent kind: the name belonged to the previous one.
      a.name = undefined;
      a.ready = false;
    }
  }

  // ---- integrations (pane.report_agent / release_agent) ---------------------------------------

  report(pane, { source, agent, state, seq, sessionId, sessionPath }) {
    const a = pane.agent;
    const last = a.reportSeqs.get(source);
    if (seq !== undefined && last !== undefined && seq <= last) return;
    if (seq !== undefined) a.reportSeqs.set(source, seq);
    const job = this.jobOf(pane);
    this.change(pane, () => {
      const before = this.kind(pane);
      a.report = { source, agent, state, job };
      if (source.startsWith('herdr:') && (sessionPath || sessionId)) {
        a.session = sessionPath
          ? { source, agent, kind: 'path', value: sessionPath }
          : { source, agent, kind: 'id', value: sessionId };
      }
      this.#afterKindChange(pane, before);
      this.setState(pane, state);
      this.#evaluateLaunch(pane);
    });
  }

  release(pane, { source, seq }) {
    const a = pane.agent;
    const last = a.reportSeqs.get(source);
    if (seq !== undefined && last !== undefined && seq <= last) return;
    if (seq !== undefined) a.reportSeqs.set(source, seq);
    if (!a.report || a.report.source !== source) return;
    this.change(pane, () => {
      const before = this.kind(pane);
      a.report = undefined;
      this.#afterKindChange(pane, before);
      this.#evaluateLaunch(pane);
    });
  }

  /** `_fake.agent.set_status`: what screen detection would conclude. `done` = idle, not seen. */
  forceStatus(pane, status) {
    this.change(pane, () => {
      if (status === 'done') {
        this.setState(pane, 'idle');
        pane.agent.seen = false;
      } else {
        this.setState(pane, status);
        if (status === 'idle') pane.agent.seen = true;
      }
      if (pane.agent.report) pane.agent.report.state = pane.agent.state;
      this.#evaluateLaunch(pane);
    });
  }

  // ---- launches (agent.start) ----------------------------------------------------------------

  beginLaunch(pane, { name, kind, timeoutMs }) {
    const now = Date.now();
    const launch = {
      kind,
      settleAt: now + this.model.options.settleMs,
      deadline: now + timeoutMs,
      sawAgent: false,
      timers: [],
    };
    for (const at of [launch.settleAt, launch.deadline]) {
      launch.timers.push(setTimeout(() => this.refresh(pane), Math.max(0, at - now) + 5));
    }
    this.change(pane, () => {
      pane.agent.name = name;
      pane.agent.launch = launch;
      pane.agent.ready = false;
    });
    this.touch(pane);
  }

  #endLaunch(pane) {
    const a = pane.agent;
    for (const timer of a.launch.timers) clearTimeout(timer);
    a.launch = undefined;
    a.name = undefined;
    this.touch(pane);
  }

  #evaluateLaunch(pane) {
    const a = pane.agent;
    const launch = a.launch;
    if (!launch) return;
    const kind = this.kind(pane);
    if (kind) launch.sawAgent = true;
    const now = Date.now();
    if (now >= launch.deadline || (kind && kind !== launch.kind) || (!kind && launch.sawAgent)) {
      this.#endLaunch(pane);
      return;
    }
    if (kind === launch.kind && now >= launch.settleAt && (a.state === 'idle' || a.state === 'blocked')) {
      for (const timer of launch.timers) clearTimeout(timer);
      a.launch = undefined;
      a.ready = true;
      a.seq += 1;
      this.touch(pane);
    }
  }
}
