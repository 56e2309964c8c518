// The job's command as a child of the exec wrapper: the leader of its own session and process group,
// stdin from /dev/null, stdout and stderr both on the job log (one append-mode file description, so
// the log keeps the order the output was written in and the kernel paces a fast writer, with no
// copy through this process). Timeouts and kills end the whole group: SIGTERM, then SIGKILL after
// KILL_GRACE_MS. A command that cannot be spawned becomes an end (127 not found, 126 cannot run).

import { fstatSync, statSync } from 'node:fs';
import { squeezedLine } from '../../core/text/clean.js';
import { groupMembers, hasProc, startOf } from '../../process/process-table.js';
import { type LongTimer, longTimeout } from '../../time/timers.js';
import type { JobEnd } from './exec-record.js';
import { type ChildEnd, type Spawned, spawnCommand } from './exec-spawn.js';

/** What a group gets between SIGTERM and SIGKILL when exec ends it. */
export const KILL_GRACE_MS = 3_000;
/** How often a killed group is checked for members that outlive its leader. */
const GROUP_POLL_MS = 50;

export interface ChildPlan {
  command: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Open, append-mode descriptor of jobs/ID.log: the child's stdout and stderr. */
  logFd: number;
  /** Whole-run limit, null = unlimited. */
  timeoutMs: number | null;
  /** Limit on time without output (the log not growing), null = unlimited. */
  idleTimeoutMs: number | null;
}

/** A spawn that failed: the end to record and the one line to print. */
export interface SpawnFailure {
  kind: 'failed';
  end: JobEnd;
  message: string;
}

/** Why exec kills a group; each is also the record's reason. */
export type KillReason = 'timeout' | 'idle-timeout' | 'stopped' | 'wrapper terminated';

export async function startChild(plan: ChildPlan): Promise<JobChild | SpawnFailure> {
  const [file, ...args] = plan.command;
  if (file === undefined) throw new Error('startChild: empty command');
  let spawned: Spawned;
  try {
    spawned = await spawnCommand({
      file,
      args,
      cwd: plan.cwd,
      env: plan.env,
      detached: true,
      stdio: ['ignore', plan.logFd, plan.logFd],
    });
  } catch (error) {
    return launchRefused(error as NodeJS.ErrnoException, plan.cwd);
  }
  if (spawned.kind === 'failed') return spawnFailure(spawned.error, file, plan.cwd);
  // Read now: until this turn of the event loop ends, Node cannot have reaped even a command that
  // exited at once, so its process-table entry is still there.
  return new JobChild(spawned.ended, spawned.pid, startOf(spawned.pid), plan);
}

function spawnFailure(error: NodeJS.ErrnoException, file: string, cwd: string): SpawnFailure {
  // Node reports a missing working directory as ENOENT of the command: tell the two apart.
  if (error.code === 'ENOENT' && !isDirectory(cwd)) {
    const why = `directory ${squeezedLine(cwd)} does not exist`;
    return {
      kind: 'failed',
      end: { exit_code: null, signal: null, reason: `launch failed: ${why}` },
      message: why,
    };
  }
  if (error.code === 'ENOENT') {
    const reason = `not found: ${squeezedLine(file)}`;
    return { kind: 'failed', end: { exit_code: 127, signal: null, reason }, message: reason };
  }
  const reason = `cannot run: ${squeezedLine(file)} (${error.code ?? squeezedLine(error.message)})`;
  return { kind: 'failed', end: { exit_code: 126, signal: null, reason }, message: reason };
}

/**
 * A refusal the system gave the spawn itself rather than the command (child_process throws these):
 * arguments past the system's limit, a working directory that is a file. The launch failed, and the
 * record ends saying so, as for a missing directory; anything that is not a system error is a bug.
 */
function launchRefused(error: NodeJS.ErrnoException, cwd: string): SpawnFailure {
  if (typeof error?.code !== 'string') throw error;
  const why =
    error.code === 'ENOTDIR' && !isDirectory(cwd)
      ? `${squeezedLine(cwd)} is not a directory`
      : error.code === 'E2BIG'
        ? "its arguments and environment are past the system's limit (E2BIG)"
        : `the system refused to start it (${squeezedLine(error.code)})`;
  return {
    kind: 'failed',
    end: { exit_code: null, signal: null, reason: `launch failed: ${why}` },
    message: `launch failed: ${why}`,
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export class JobChild {
  readonly kind = 'running';
  private killedFor: KillReason | undefined;
  /** The leader has exited: the job is over, and a late timer or signal is not why it ended. */
  private leaderGone = false;
  private killTimer: NodeJS.Timeout | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private timeout: LongTimer | undefined;
  private readonly exited: Promise<ChildEnd>;

  constructor(
    ended: Promise<ChildEnd>,
    /** The leader's pid, which is also the group id. */
    readonly pgid: number,
    /** The leader's start time (null without /proc or when it was already gone). */
    readonly start: number | null,
    plan: ChildPlan,
  ) {
    this.exited = ended.then((end) => {
      this.leaderGone = true;
      return end;
    });
    // --timeout may be months long: a long-safe timer (timers.ts), never a bare setTimeout.
    if (plan.timeoutMs !== null) this.timeout = longTimeout(plan.timeoutMs, () => this.kill('timeout'));
    if (plan.idleTimeoutMs !== null) this.watchIdle(plan.logFd, plan.idleTimeoutMs);
  }

  /** Whether the leader exits within `ms` (resolves as soon as it does, or false after `ms`). */
  exitsWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** Ends the group for `reason`: SIGTERM now, SIGKILL after the grace. The first reason stays. */
  kill(reason: KillReason): void {
    if (this.killedFor !== undefined || this.leaderGone) return;
    this.killedFor = reason;
    this.signalGroup('SIGTERM');
    this.killTimer = setTimeout(() => this.signalGroup('SIGKILL'), KILL_GRACE_MS);
  }

  /**
   * Resolves once the leader exited and, when exec killed the group, once the rest of the group is
   * gone too (SIGKILL at the end of the grace). `stopped()` is asked at the end: `stop` may have
   * killed the group from outside.
   */
  async wait(stopped: () => boolean): Promise<JobEnd> {
    const { code, signal } = await this.exited;
    for (const timer of this.timers) clearTimeout(timer);
    this.timeout?.clear();
    if (this.killedFor !== undefined) await this.reapGroup();
    clearTimeout(this.killTimer);
    const reason = this.killedFor ?? (stopped() ? 'stopped' : null);
    return { exit_code: signal === null ? code : null, signal, reason };
  }

  /** Waits for the killed group's other members, then SIGKILLs whatever outlived the grace. */
  private async reapGroup(): Promise<void> {
    const deadline = Date.now() + KILL_GRACE_MS;
    while (Date.now() < deadline) {
      if (await this.groupGone()) return;
      await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
    }
    if (!(await this.groupGone())) this.signalGroup('SIGKILL');
  }

  private async groupGone(): Promise<boolean> {
    if (hasProc()) return (await groupMembers(this.pgid, this.start ?? undefined)).length === 0;
    try {
      process.kill(-this.pgid, 0);
      return false;
    } catch {
      return true;
    }
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pgid, signal);
    } catch (error) {
      // ESRCH: the whole group is gone already.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }

  /** Kills the group when the log has not grown for `idleMs`. */
  private watchIdle(logFd: number, idleMs: number): void {
    const every = Math.max(25, Math.min(1_000, Math.floor(idleMs / 4)));
    let size = fstatSync(logFd).size;
    let quietSince = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      const current = fstatSync(logFd).size;
      if (current !== size) {
        size = current;
        quietSince = now;
      } else if (now - quietSince >= idleMs) {
        clearInterval(timer);
        this.kill('idle-timeout');
      }
    }, every);
    this.timers.push(timer);
  }
}
