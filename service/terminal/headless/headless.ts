// The terminal port without Herdr. A "pane" is a detached process group (own session, unref'd)
// whose output is appended to a log the caller names; close kills the group, read tails the log,
// process info comes from the process table. Agents, workspaces, tabs, worktrees and plugins are refused with
// `<command> needs Herdr or tmux (<why>)`. Calls the product makes routinely are harmless no-ops instead:
// pane/workspace metadata and agent reports (applied: false), notify (shown: false, reason
// "no_herdr"), and listing (an empty session).

import type { ProcessInfo } from '../../core/cleanup/pane-processes.js';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { stripEscapes } from '../../core/text/clean.js';
import { launchDetached } from '../../process/launch-detached.js';
import { groupMembers, hasProc, outputTarget, pidAlive, readStat } from '../../process/process-table.js';
import { SpawnError } from '../../process/run-process.js';
import { fsFailure } from '../../state/engine/fs-errors.js';
import { openAppendRegular, openRegular } from '../../state/engine/regular-file.js';
import { foregroundRecord } from '../foreground.js';
import { ROUTINE_TIMEOUT_MS } from '../herdr/herdr-channel.js';
import type {
  LaunchedCommand,
  MetadataResult,
  ReadOptions,
  RunCommandOptions,
  TerminalPort,
} from '../port.js';
import type { Listing, Machine, Notification, PaneRead } from '../port-records.js';
import { needsHerdr, needsTerminal, TerminalError } from '../terminal-errors.js';
import { forwardedLater } from './forwarded-later.js';

export interface HeadlessOptions {
  /** Why Herdr is not used, e.g. `HERDR_SOCKET_PATH is not set and no herdr binary is on PATH`. */
  why: string;
  /** Names the refused command in messages (`agent needs Herdr or tmux (...)`); else the operation's name. */
  commandName?: string;
  /** A herdr binary whose server did not answer: machine verbs and forwarding still work through it. */
  binary?: string;
  env: NodeJS.ProcessEnv;
  routineMs?: number;
}

/** Lines a read returns by default, like Herdr's `recent` source; Herdr's maximum is 1000. */
const DEFAULT_LINES = 80;
const MAX_LINES = 1000;
/** A tail read looks at most this far back in the log. */
const TAIL_BYTES = 256 * 1024;

interface Group {
  pgid: number;
  start: number | undefined;
}

const PREFIX = 'headless:';

function paneIdOf(pgid: number, start: number | undefined): string {
  return start === undefined ? `${PREFIX}${pgid}` : `${PREFIX}${pgid}@${start}`;
}

function groupOf(paneId: string, method: string): Group {
  const match = /^headless:(\d+)(?:@(\d+))?$/.exec(paneId);
  if (!match) throw new TerminalError('pane_not_found', `pane ${paneId} not found`, { method });
  return { pgid: Number(match[1]), start: match[2] === undefined ? undefined : Number(match[2]) };
}

export class HeadlessTerminal implements TerminalPort {
  readonly kind = 'headless';
  readonly insideHerdr = false;
  readonly server = undefined;
  readonly machine = undefined;
  readonly why: string;
  private readonly commandName: string | undefined;
  private readonly binary: string | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly routineMs: number;
  /** Logs of the groups this process launched, for reads; other groups are found through /proc. */
  private readonly logs = new Map<string, string>();

  constructor(options: HeadlessOptions) {
    this.why = options.why;
    this.commandName = options.commandName;
    this.binary = options.binary;
    this.env = options.env;
    this.routineMs = options.routineMs ?? ROUTINE_TIMEOUT_MS;
  }

  /** Refused: Herdr or tmux would do it, or (`herdrOnly`: plugin panes) only Herdr. */
  private refuse(operation: string, method: string, herdrOnly = false): Promise<never> {
    const refusal = herdrOnly ? needsHerdr : needsTerminal;
    return Promise.reject(refusal(this.commandName ?? operation, this.why, method));
  }

  listWorkspaces = () => this.refuse('workspace list', 'workspace.list');
  getWorkspace = () => this.refuse('workspace get', 'workspace.get');
  createWorkspace = () => this.refuse('workspace create', 'workspace.create');
  closeWorkspace = () => this.refuse('workspace close', 'workspace.close');
  listTabs = () => this.refuse('tab list', 'tab.list');
  createTab = () => this.refuse('tab create', 'tab.create');
  closeTab = () => this.refuse('tab close', 'tab.close');
  listPanes = () => this.refuse('pane list', 'pane.list');
  getPane = () => this.refuse('pane get', 'pane.get');
  currentPane = () => this.refuse('pane current', 'pane.current');
  splitPane = () => this.refuse('pane split', 'pane.split');
  focusPane = () => this.refuse('pane focus', 'pane.focus');
  paneLayout = () => this.refuse('pane layout', 'pane.layout');
  swapPane = () => this.refuse('pane swap', 'pane.swap');
  setSplitRatio = () => this.refuse('layout ratio', 'layout.set_split_ratio');
  sendInput = () => this.refuse('pane input', 'pane.send_input');
  runLine = () => this.refuse('pane run', 'pane.send_input');
  listAgents = () => this.refuse('agent list', 'agent.list');
  getAgent = () => this.refuse('agent get', 'agent.get');
  startAgent = () => this.refuse('agent start', 'agent.start');
  waitAgent = () => this.refuse('agent wait', 'agent.wait');
  readAgent = () => this.refuse('agent read', 'agent.read');
  listWorktrees = () => this.refuse('worktree list', 'worktree.list');
  openWorktree = () => this.refuse('worktree open', 'worktree.open');
  openPluginPane = () => this.refuse('plugin pane open', 'plugin.pane.open', true);
  closePluginPane = () => this.refuse('plugin pane close', 'plugin.pane.close', true);
  listPlugins = () => this.refuse('plugin list', 'plugin.list', true);

  async reportPaneMetadata(): Promise<MetadataResult> {
    return { applied: false };
  }

  async reportWorkspaceMetadata(): Promise<MetadataResult> {
    return { applied: false };
  }

  async reportAgent(): Promise<MetadataResult> {
    return { applied: false };
  }

  async notify(): Promise<Notification> {
    return { shown: false, reason: 'no_herdr' };
  }

  async listAll(): Promise<Listing> {
    return { workspaces: [], tabs: [], panes: [], agents: [] };
  }

  async machines(): Promise<Machine[] | null> {
    const { listMachines } = await import('../herdr/herdr-machines.js');
    return listMachines(this.binary, this.env, this.routineMs);
  }

  forMachine(machine: string): TerminalPort {
    // Herdr's adapter is loaded on the forwarded port's first call (forwarded-later.ts).
    return forwardedLater(machine, this.binary, this.env, this.routineMs);
  }

  /** Spawns argv as the leader of a new session; resolves once it runs, rejects if it cannot start. */
  async runCommand(options: RunCommandOptions): Promise<LaunchedCommand> {
    const [command] = options.argv;
    if (command === undefined) throw new Error('runCommand: argv is empty');
    const log = options.logPath === undefined ? undefined : await openAppendRegular(options.logPath, 0o600);
    try {
      const pid = await launchDetached(options.argv, {
        cwd: options.cwd,
        env: { ...this.env, ...options.env },
        ...(log === undefined ? {} : { outputFd: log.fd }),
      }).catch((error: unknown) => {
        const why = error instanceof SpawnError ? messageOf(error.cause) : messageOf(error);
        throw new DogsledError(`cannot start ${command} in ${options.cwd}: ${why}`, { cause: error });
      });
      const start = (await readStat(pid))?.start;
      const paneId = paneIdOf(pid, start);
      if (options.logPath !== undefined) this.logs.set(paneId, options.logPath);
      return { paneId, pid };
    } finally {
      await log?.close();
    }
  }

  /** Ends the group with SIGTERM; a group that is already gone is fine. */
  async closePane(paneId: string): Promise<void> {
    const group = groupOf(paneId, 'pane.close');
    if (!(await this.alive(group))) return;
    try {
      process.kill(-group.pgid, 'SIGTERM');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }

  /** The tail of the group's log, stripped of terminal escapes like Herdr's default read. */
  async readPane(paneId: string, options: ReadOptions = {}): Promise<PaneRead> {
    const group = groupOf(paneId, 'pane.read');
    const log = this.logs.get(paneId) ?? (await this.logOf(group));
    if (log === undefined) {
      throw new TerminalError('pane_not_found', `pane ${paneId} has no output log to read`, {
        method: 'pane.read',
      });
    }
    const lines = Math.min(options.lines ?? DEFAULT_LINES, MAX_LINES);
    const read = await tail(log, lines);
    if (read === undefined) {
      throw new TerminalError('pane_not_found', `pane ${paneId}'s output log is gone`, {
        method: 'pane.read',
      });
    }
    const { text, truncated } = read;
    return { pane_id: paneId, source: options.source ?? 'recent', text: stripEscapes(text), truncated };
  }

  async processInfo(paneId: string): Promise<ProcessInfo> {
    const method = 'pane.process_info';
    const group = groupOf(paneId, method);
    if (!hasProc()) {
      if (!pidAlive(group.pgid))
        throw new TerminalError('pane_not_found', `pane ${paneId} has exited`, { method });
      return {
        pane_id: paneId,
        shell_pid: group.pgid,
        foreground_process_group_id: group.pgid,
        foreground_processes: [],
      };
    }
    const members = await groupMembers(group.pgid, group.start);
    if (members.length === 0)
      throw new TerminalError('pane_not_found', `pane ${paneId} has exited`, { method });
    return {
      pane_id: paneId,
      shell_pid: group.pgid,
      foreground_process_group_id: group.pgid,
      foreground_processes: await Promise.all(members.map(foregroundRecord)),
    };
  }

  private async alive(group: Group): Promise<boolean> {
    if (!hasProc()) return pidAlive(group.pgid);
    return (await groupMembers(group.pgid, group.start)).length > 0;
  }

  /** A group launched by another process: its leader's stdout, when that is a regular file. */
  private async logOf(group: Group): Promise<string | undefined> {
    const leader = await readStat(group.pgid);
    if (!leader || (group.start !== undefined && leader.start !== group.start)) return undefined;
    const target = await outputTarget(group.pgid);
    return target?.startsWith('/') && !target.startsWith('/dev/') ? target : undefined;
  }
}

/** A group member in the shape of Herdr's foreground process entries. */
/**
 * The last `lines` lines of a file, reading at most TAIL_BYTES from its end; undefined when it is
 * gone. Only a regular file is read: a FIFO in the log's place is refused, never waited on.
 */
async function tail(path: string, lines: number): Promise<{ text: string; truncated: boolean } | undefined> {
  const handle = await openRegular(path);
  if (handle === undefined) return undefined;
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    let all = buffer.toString('utf8').split('\n');
    if (length < size) all = all.slice(1); // the first line was cut by the byte window
    const trailing = all.at(-1) === '' ? all.pop() : undefined;
    const kept = all.slice(-lines);
    const text = kept.join('\n') + (trailing === '' && kept.length > 0 ? '\n' : '');
    return { text, truncated: length < size || all.length > lines };
  } catch (error) {
    throw fsFailure('read', path, error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
