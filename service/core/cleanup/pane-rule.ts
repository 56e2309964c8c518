// The one pane rule that prune and the sweep share (spec, "Cleanup"): what an empty prompt is, which
// Herdr panes close and which whole workspaces close with them. Pure: the caller gathers process
// facts, dogsled's records and the service's observations, and passes `now`. A doubtful pane stays,
// and every verdict says why in words a user can act on. Reports name programs, never arguments.

import { formatAge } from '../common/duration.js';
import { stripEscapes } from '../text/clean.js';
import type { ProcessInfo } from './pane-processes.js';
import { isFresh, WATCH_MAX_GAP_MS, type WatchEntry } from './pane-watch-carry.js';

/** Shell names Herdr accepts as an available shell (CONTRACT §4.1). */
export const KNOWN_SHELLS: ReadonlySet<string> = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'fish',
  'ksh',
  'mksh',
  'csh',
  'tcsh',
  'elvish',
  'xonsh',
  'nu',
  'pwsh',
  'powershell',
  'cmd',
]);

/** A shell without a dogsled record closes after this long continuously at an empty prompt. */
export const EMPTY_SHELL_CLOSE_MS = 15 * 60_000;
/** An agent pane needs more than this long continuously idle or done (and a done mark). */
export const AGENT_REST_CLOSE_MS = 24 * 3_600_000;

/** Options an interactive shell may carry and still wait at its prompt; anything else keeps the pane. */
const INTERACTIVE_LONG_OPTIONS = new Set(['--login', '--interactive', '--noprofile', '--norc']);
const INTERACTIVE_SHORT_OPTIONS = /^-[il]+$/;

/** What the pane's foreground shows, before background jobs are considered. */
export type Foreground =
  | { kind: 'shell'; shell: string; pid: number }
  | { kind: 'running'; program: string; reason: string }
  | { kind: 'unknown'; reason: string };

/** The fresh check of a pane without an agent. */
export type PromptState =
  | { kind: 'empty'; shell: string }
  | { kind: 'running'; program: string; reason: string }
  | { kind: 'unknown'; reason: string };

type ProcessFacts = Pick<ProcessInfo, 'shell_pid' | 'foreground_process_group_id' | 'foreground_processes'>;

/**
 * A pane is at a shell prompt only when its root process is a known shell, alone in the foreground
 * process group, started with interactive options only: `sh -c`, a script and an unknown option all
 * mean the shell is running something.
 */
export function classifyForeground(info: ProcessFacts): Foreground {
  const shellPid = info.shell_pid;
  const group = info.foreground_process_group_id;
  if (shellPid === undefined) return { kind: 'unknown', reason: 'its process has exited' };
  if (group === undefined) return { kind: 'unknown', reason: 'its foreground process group cannot be read' };
  const processes = info.foreground_processes;
  if (group !== shellPid) {
    const leader = processes.find((member) => member.pid === group) ?? processes[0];
    if (!leader) return { kind: 'unknown', reason: 'its foreground processes cannot be read' };
    return running(programOf(leader));
  }
  const other = processes.find((member) => member.pid !== shellPid);
  if (other) return running(programOf(other));
  const root = processes.find((member) => member.pid === shellPid);
  if (!root) return { kind: 'unknown', reason: 'its shell process cannot be read' };
  const shell = programOf(root);
  if (!KNOWN_SHELLS.has(shell)) return running(shell);
  if (root.argv === undefined) return { kind: 'unknown', reason: `the arguments of ${shell} cannot be read` };
  const use = shellUse(root.argv.slice(1));
  if (use !== null) return { kind: 'running', program: shell, reason: `${shell} ${use}` };
  return { kind: 'shell', shell, pid: shellPid };
}

/** A process's program name (comm) as reports may show it: the process chose it, so it is untrusted. */
function programOf(member: { name: string }): string {
  return stripEscapes(member.name).trim() || '?';
}

function running(program: string): Foreground {
  return { kind: 'running', program, reason: `runs ${program}` };
}

/** Why a shell with these arguments is not waiting at its prompt, or null when it is. */
function shellUse(args: readonly string[]): string | null {
  for (const [index, arg] of args.entries()) {
    if (arg === '--') return index < args.length - 1 ? 'runs a script' : null;
    if (arg.startsWith('--')) {
      if (!INTERACTIVE_LONG_OPTIONS.has(arg)) return 'has an unknown option';
    } else if (arg.startsWith('+')) {
      return 'has an unknown option';
    } else if (arg.startsWith('-') && arg.length > 1) {
      if (/^-[a-zA-Z]*c/.test(arg)) return 'runs a command (-c)';
      if (!INTERACTIVE_SHORT_OPTIONS.test(arg)) return 'has an unknown option';
    } else {
      return 'runs a script';
    }
  }
  return null;
}

/**
 * The prompt state once the shell's own children are known: a background job the shell started
 * keeps the pane (closing it would end the job). `children` are program names; null when unreadable.
 */
export function promptState(foreground: Foreground, children: readonly string[] | null): PromptState {
  if (foreground.kind !== 'shell') return foreground;
  if (children === null) {
    return { kind: 'unknown', reason: `the child processes of ${foreground.shell} cannot be read` };
  }
  const names = children.map((name) => programOf({ name }));
  const [first] = names;
  if (first !== undefined) {
    const more = children.length > 1 ? ` and ${children.length - 1} more` : '';
    return { kind: 'running', program: first, reason: `a background job runs (${first}${more})` };
  }
  return { kind: 'empty', shell: foreground.shell };
}

/** A dogsled record that owns the pane: a job, a launch, or an agent item. */
export interface PaneRecord {
  kind: 'job' | 'launch' | 'item';
  id: string;
  /** The job ended, the launch is final, the item closed. */
  finished: boolean;
}

export interface AgentFacts {
  /** The detected kind (claude, pi...); null while a launch is still pending. */
  kind: string | null;
  /** Herdr's agent_status: idle, working, blocked, done or unknown. */
  status: string;
  /** The agent called `dogsled done`. */
  doneMark: boolean;
  openChildren: number;
}

/** Dogsled work a pane owns: open items and queued or admitting tickets whose owner it is. */
export interface OwnedWork {
  items: number;
  tickets: number;
}

/**
 * The pane's terminal's inbox: how many undelivered records wait for its registered reader (0 when
 * no reader is registered), or why the file could not be read.
 */
export type InboxFacts = { pending: number } | { unreadable: string };

export interface PaneFacts {
  pane: string;
  terminalId: string;
  /** The pane the cleanup runs from (for the sweep: the service's own pane). */
  caller: boolean;
  focused: boolean;
  /** Set when Herdr reports an agent (or a pending launch) in the terminal. */
  agent: AgentFacts | null;
  /** The fresh check; only read for panes without an agent. */
  prompt: PromptState;
  /** The shell's working directory is gone; null when unknown. */
  directoryGone: boolean | null;
  cwd: string | null;
  records: readonly PaneRecord[];
  /** The service's observations of this terminal. */
  watch: WatchEntry | undefined;
  /** Work it owns: owning dogsled work counts as a dogsled record (absent: none). */
  owns?: OwnedWork;
  /** Its inbox (absent: none was ever written). */
  inbox?: InboxFacts;
}

export type PaneVerdict = { kind: 'close'; reason: string } | { kind: 'keep'; reason: string };

const keep = (reason: string): PaneVerdict => ({ kind: 'keep', reason });
const close = (reason: string): PaneVerdict => ({ kind: 'close', reason });

export function paneVerdict(facts: PaneFacts, now: number, maxGapMs: number = WATCH_MAX_GAP_MS): PaneVerdict {
  if (facts.caller) return keep("the caller's pane");
  if (facts.focused) return keep('focused in Herdr');
  const owner = ownerKeep(facts);
  if (owner !== null) return keep(owner);
  if (facts.agent) return agentVerdict(facts.agent, facts.watch, now, maxGapMs);
  const prompt = facts.prompt;
  if (prompt.kind === 'running') return keep(prompt.reason);
  if (prompt.kind === 'unknown') return keep(`cannot tell whether it is idle: ${prompt.reason}`);
  if (facts.directoryGone === true) {
    const directory = facts.cwd === null ? 'its directory' : `its directory ${facts.cwd}`;
    return close(`empty ${prompt.shell} prompt; ${directory} is gone`);
  }
  const open = facts.records.find((record) => !record.finished);
  if (open) return keep(`its ${RECORD_NAMES[open.kind]} ${open.id} ${OPEN_STATES[open.kind]}`);
  const finished = facts.records[0];
  if (finished) {
    const what = `${RECORD_NAMES[finished.kind]} ${finished.id} ${FINISHED_STATES[finished.kind]}`;
    return close(`empty ${prompt.shell} prompt; its ${what}`);
  }
  return emptyShellVerdict(prompt.shell, facts.watch, now, maxGapMs);
}

/**
 * Why a pane stays as an owner, or null: it owns open items or queued tickets, or its terminal's
 * registered inbox reader has records waiting. An owner's pane is where its children's replies,
 * blocked reports and notices arrive; closing it would fail them all ("its terminal is gone"),
 * whatever its prompt or agent looks like, so no pane rule and no worktree removal closes it.
 */
export function ownerKeep(facts: Pick<PaneFacts, 'owns' | 'inbox'>): string | null {
  const owned = ownedText(facts.owns);
  if (owned !== null) return `it owns ${owned}`;
  if (facts.inbox === undefined) return null;
  if ('unreadable' in facts.inbox) return `its inbox cannot be read: ${facts.inbox.unreadable}`;
  const { pending } = facts.inbox;
  if (pending === 0) return null;
  return `its inbox reader has ${pending} undelivered ${pending === 1 ? 'record' : 'records'}`;
}

/** `2 open items and 1 queued ticket`, or null when it owns nothing. */
function ownedText(owns: OwnedWork | undefined): string | null {
  if (owns === undefined) return null;
  const parts = [
    owns.items > 0 ? `${owns.items} open ${owns.items === 1 ? 'item' : 'items'}` : '',
    owns.tickets > 0 ? `${owns.tickets} queued ${owns.tickets === 1 ? 'ticket' : 'tickets'}` : '',
  ].filter(Boolean);
  return parts.length === 0 ? null : parts.join(' and ');
}

const RECORD_NAMES = { job: 'job', launch: 'launch', item: 'agent item' } as const;
const OPEN_STATES = { job: 'has not ended', launch: 'is not final', item: 'is open' } as const;
const FINISHED_STATES = { job: 'ended', launch: 'is final', item: 'closed' } as const;

function emptyShellVerdict(
  shell: string,
  watch: WatchEntry | undefined,
  now: number,
  maxGapMs: number,
): PaneVerdict {
  const limit = formatAge(EMPTY_SHELL_CLOSE_MS);
  const stale = staleness(watch, now, maxGapMs);
  if (stale) return keep(`empty ${shell} prompt, no dogsled record; ${stale}`);
  const since = watch?.empty_since_ms ?? null;
  if (since === null || since > now) {
    return keep(
      `empty ${shell} prompt, no dogsled record; the service has not yet seen it empty (closes after ${limit})`,
    );
  }
  const age = now - since;
  if (age < EMPTY_SHELL_CLOSE_MS) {
    return keep(`empty ${shell} prompt for ${formatAge(age)}, no dogsled record; closes after ${limit}`);
  }
  return close(`empty ${shell} prompt for ${formatAge(age)} with no dogsled record`);
}

function agentVerdict(
  agent: AgentFacts,
  watch: WatchEntry | undefined,
  now: number,
  maxGapMs: number,
): PaneVerdict {
  if (agent.kind === null) return keep('an agent launch is pending');
  const name = agent.kind;
  if (agent.status === 'working') return keep(`${name} is working`);
  if (agent.status === 'blocked') return keep(`${name} is blocked, waiting for an answer`);
  if (agent.status !== 'idle' && agent.status !== 'done') return keep(`the state of ${name} is unknown`);
  if (agent.openChildren > 0) {
    return keep(`${name} has ${agent.openChildren} open ${agent.openChildren === 1 ? 'child' : 'children'}`);
  }
  if (!agent.doneMark) return keep(`${name} is ${agent.status} and has not called dogsled done`);
  const limit = formatAge(AGENT_REST_CLOSE_MS);
  const stale = staleness(watch, now, maxGapMs);
  if (stale) return keep(`${name} called dogsled done; ${stale}`);
  const since = watch?.idle_since_ms ?? null;
  if (since === null || since > now) {
    return keep(`${name} called dogsled done; the service has not yet seen it idle (closes after ${limit})`);
  }
  const age = now - since;
  if (age <= AGENT_REST_CLOSE_MS) {
    return keep(`${name} called dogsled done and is idle for ${formatAge(age)}; closes after ${limit}`);
  }
  return close(`${name} called dogsled done and is idle for ${formatAge(age)}`);
}

/** Why the service's observations cannot vouch for continuity, or null when they can. */
function staleness(watch: WatchEntry | undefined, now: number, maxGapMs: number): string | null {
  if (watch === undefined) return 'the service has not observed it (is dogsled serve running?)';
  if (isFresh(watch, now, maxGapMs)) return null;
  return `the service last observed it ${formatAge(now - watch.observed_ms)} ago (is dogsled serve running?)`;
}

export interface WorkspaceFacts {
  workspace: string;
  /** Herdr's pane count over all tabs. */
  paneCount: number;
  /** The worktree whose removal in the same plan closes this workspace, else null. */
  closedWithWorktree: string | null;
}

export interface JudgedPane {
  pane: string;
  workspace: string;
  caller: boolean;
  verdict: PaneVerdict;
  /** A shell alone at its prompt: a worktree removal closes it with its workspace or checkout. */
  idleShell?: boolean;
  /** The worktree this pane works in that the same plan removes, else null. */
  removedWorktree?: string | null;
}

/**
 * How a pane leaves: on its own, with its whole workspace, with a worktree removal, or not at all.
 * Only `close` is an entry of its own for prune; the others travel with another entry.
 */
export type PaneDisposition = 'close' | 'keep' | 'with_workspace' | 'with_worktree';

export interface WorkspacePlan {
  workspace: string;
  panes: string[];
  verdict: PaneVerdict;
}

export interface PanePlan {
  pane: string;
  workspace: string;
  disposition: PaneDisposition;
  reason: string;
}

/**
 * Groups judged panes by workspace: a workspace whose every pane closes is one entry that closes it
 * whole (and its panes go with it). The caller's workspace stays, and a workspace that a worktree
 * removal closes is left to that removal.
 */
export function workspaceVerdicts(
  workspaces: readonly WorkspaceFacts[],
  panes: readonly JudgedPane[],
): { workspaces: WorkspacePlan[]; panes: PanePlan[] } {
  const plans: WorkspacePlan[] = [];
  const dispositions = new Map<string, { disposition: PaneDisposition; reason: string }>();
  for (const workspace of workspaces) {
    const own = panes.filter((pane) => pane.workspace === workspace.workspace);
    const verdict = wholeVerdict(workspace, own);
    plans.push({ workspace: workspace.workspace, panes: own.map((pane) => pane.pane), verdict });
    for (const pane of own) {
      // A worktree removal closes the idle shells of the workspace that shows it and those working
      // in the checkout (it rechecks them first); anything busier keeps the worktree instead.
      const worktree = workspace.closedWithWorktree ?? pane.removedWorktree ?? null;
      if (worktree !== null && !pane.caller && (pane.verdict.kind === 'close' || pane.idleShell)) {
        dispositions.set(pane.pane, {
          disposition: 'with_worktree',
          reason: `closes with worktree ${worktree}`,
        });
        continue;
      }
      if (pane.verdict.kind !== 'close') continue;
      if (workspace.closedWithWorktree !== null) continue;
      if (verdict.kind === 'close') {
        dispositions.set(pane.pane, {
          disposition: 'with_workspace',
          reason: `closes with workspace ${workspace.workspace}: ${pane.verdict.reason}`,
        });
      }
    }
  }
  const planned = panes.map((pane): PanePlan => {
    const whole = dispositions.get(pane.pane);
    if (whole) return { pane: pane.pane, workspace: pane.workspace, ...whole };
    return {
      pane: pane.pane,
      workspace: pane.workspace,
      disposition: pane.verdict.kind,
      reason: pane.verdict.reason,
    };
  });
  return { workspaces: plans, panes: planned };
}

function wholeVerdict(workspace: WorkspaceFacts, own: readonly JudgedPane[]): PaneVerdict {
  if (own.some((pane) => pane.caller)) return keep("the caller's workspace");
  if (workspace.closedWithWorktree !== null)
    return keep(`closes with worktree ${workspace.closedWithWorktree}`);
  if (own.length === 0) return keep('no pane of it was seen');
  if (own.length !== workspace.paneCount) {
    return keep(
      `Herdr reports ${workspace.paneCount} panes but ${own.length} ${own.length === 1 ? 'was' : 'were'} seen`,
    );
  }
  const stays = own.find((pane) => pane.verdict.kind === 'keep');
  if (stays) return keep(`pane ${stays.pane} stays: ${stays.verdict.reason}`);
  const [only] = own;
  if (own.length === 1 && only) return close(only.verdict.reason);
  return close(`all ${own.length} panes qualify`);
}
