// The one reader of the process table. On Linux everything comes from /proc/<pid> (the stat line
// is parsed here and nowhere else); on macOS, which has no /proc, from `ps` and `lsof`
// (table-darwin.ts, loaded only there). A process is named by pid plus start time, so a pid the
// kernel reused is never taken for the process we knew. Host-wide files stay in service/probe.

import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { messageOf } from '../core/common/errors.js';
import { squeezedLine } from '../core/text/clean.js';

export const PROC_ROOT = '/proc';
/** This process's raw argv, NUL-separated, exactly as the kernel holds its bytes. */
export const OWN_CMDLINE_PATH = `${PROC_ROOT}/self/cmdline`;

/** One /proc/PID/stat line, the fields dogsled uses. */
export interface ProcStat {
  pid: number;
  /** The program name, escape sequences and control characters removed. */
  comm: string;
  /** R, S, D, Z, T...; Z is a zombie: it has exited and only waits to be reaped. */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** The foreground process group of its controlling terminal (field 8); -1 without a terminal. */
  tpgid: number;
  threads: number;
  /** Clock ticks after boot (field 22): with the pid, identifies one process for its lifetime. */
  start: number;
  /** CPU ticks of the children it reaped (cutime + cstime). */
  childTicks: number;
  /** Its own CPU ticks, every thread's, ended ones included (utime + stime). */
  cpuTicks: number;
}

/** A row of the host's process table, the same on Linux and macOS. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** The program name (comm), control characters removed. */
  comm: string;
  /** Unknown on macOS, where each process counts as possibly multi-threaded (2). */
  threads: number;
  /**
   * Working directory; absent when it cannot be read (another user's process, or one that just
   * exited). A deleted directory reads as its old path with " (deleted)" appended, as the kernel says.
   */
  cwd?: string;
}

export type ProcessTable = { ok: true; processes: ProcessEntry[] } | { ok: false; error: string };

/**
 * One line of /proc/PID/stat. The program name sits between the first `(` and the last `)` and may
 * itself hold spaces and parentheses; the fields after it are counted from there.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // After ")" comes field 3 (state), so field N is at index N - 3: ppid 4, pgrp 5, session 6,
  // utime 14, stime 15, cutime 16, cstime 17, num_threads 20, starttime 22.
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const number = (field: number) => Number(fields[field - 3]);
  const stat = {
    pid,
    comm: squeezedLine(text.slice(open + 1, close), 64),
    state: fields[0] ?? '?',
    ppid: number(4),
    pgrp: number(5),
    session: number(6),
    tpgid: number(8),
    threads: number(20),
    start: number(22),
    childTicks: number(16) + number(17),
    cpuTicks: number(14) + number(15),
  };
  const integers = [
    stat.pid,
    stat.ppid,
    stat.pgrp,
    stat.session,
    stat.tpgid,
    stat.threads,
    stat.start,
    stat.childTicks,
    stat.cpuTicks,
  ];
  return integers.every(Number.isSafeInteger) ? stat : null;
}

/**
 * The stat line of `pid`, or undefined when it is gone or unreadable. Read synchronously, like the
 * children and comm files: procfs answers these from the kernel's task without touching a disk or
 * the process's memory map, and the service reads them for every pane every tick, where an async
 * read was four thread-pool round trips (open, fstat, read, close). cmdline and environ, which
 * read the process's memory and can wait on its memory-map lock, stay asynchronous.
 */
export async function readStat(pid: number, root = PROC_ROOT): Promise<ProcStat | undefined> {
  const text = readProcSync(join(root, String(pid), 'stat'));
  return text === undefined ? undefined : (parseProcStat(text) ?? undefined);
}

/** Synchronous, so a liveness check can run inside a locked read-modify-write. */
export function readStatSync(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`${PROC_ROOT}/${pid}/stat`, 'utf8')) ?? undefined;
  } catch {
    return undefined;
  }
}

let noProc: boolean | undefined;

/** True on a system with /proc (Linux), decided once per process. */
export function hasProc(): boolean {
  if (noProc === undefined) {
    try {
      readFileSync(`${PROC_ROOT}/self/stat`);
      noProc = false;
    } catch {
      noProc = true;
    }
  }
  return !noProc;
}

/** The start time of `pid` (null without /proc or when it is gone). */
export function startOf(pid: number): number | null {
  return readStatSync(pid)?.start ?? null;
}

let ownStart: number | null | undefined;

/** This process's start time, read once (null without /proc). */
export function selfStart(): number | null {
  ownStart ??= startOf(process.pid);
  return ownStart;
}

/**
 * Whether the process `pid` that started at `start` still runs. A zombie counts as dead. A null
 * start (unknown) trusts the pid alone. Without /proc, signal 0 answers and the pid-reuse risk that
 * platform leaves is accepted.
 */
export function processAlive(pid: number, start: number | null | undefined): boolean {
  const stat = readStatSync(pid);
  if (stat === undefined) return hasProc() ? false : pidAlive(pid);
  if (stat.state === 'Z') return false;
  return start === null || start === undefined || stat.start === start;
}

/** Whether `pid` exists, by signal 0 (EPERM means it exists but is not ours). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Live (non-zombie) members of process group `pgid`; empty when its leader is another process now. */
export async function groupMembers(
  pgid: number,
  leaderStart: number | undefined,
  root = PROC_ROOT,
): Promise<ProcStat[]> {
  const members: ProcStat[] = [];
  for (const pid of await pidsIn(root)) {
    const stat = await readStat(pid, root);
    if (!stat || stat.pgrp !== pgid || stat.state === 'Z') continue;
    if (stat.pid === pgid && leaderStart !== undefined && stat.start !== leaderStart) return [];
    members.push(stat);
  }
  return members.sort((a, b) => a.pid - b.pid);
}

/** The pids of `pid`'s children (of its main thread), or null when they cannot be read. */
export async function childPids(pid: number, root = PROC_ROOT): Promise<number[] | null> {
  const text = readProcSync(childrenPath(pid, root));
  return text === undefined ? null : parseChildren(text);
}

/**
 * childPids read synchronously, for the job supervisor's samples: a procfs read never waits on a
 * disk, and the asynchronous one loads node:fs/promises and starts the thread pool in a supervisor
 * that needs neither (exec-usage.ts).
 */
export function childPidsSync(pid: number, root = PROC_ROOT): number[] | null {
  const text = readProcSync(childrenPath(pid, root));
  return text === undefined ? null : parseChildren(text);
}

function childrenPath(pid: number, root: string): string {
  return join(root, String(pid), 'task', String(pid), 'children');
}

function parseChildren(text: string): number[] {
  return text
    .split(/\s+/)
    .filter((word) => /^\d+$/.test(word))
    .map(Number);
}

function readProcSync(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The program names of `pid`'s children (control characters removed), or null when unreadable. */
export async function childNames(pid: number, root?: string): Promise<string[] | null> {
  if (root === undefined && process.platform === 'darwin') {
    return (await import('./process-table-darwin.js')).darwinChildNames(pid);
  }
  const children = await childPids(pid, root);
  if (children === null) return null;
  const names: string[] = [];
  for (const child of children) {
    const comm = readProcSync(join(root ?? PROC_ROOT, String(child), 'comm'));
    // One that exited since the listing is no longer a child.
    if (comm !== undefined) names.push(squeezedLine(comm, 64));
  }
  return names;
}

/**
 * A process's CPU time as the kernel counts it, read twice around a window to tell how busy it was
 * (doctor's hot processes). Two counters, read at once:
 * - `ticks`, the stat line's utime + stime: every thread's, ended ones included, but in clock ticks
 *   (USER_HZ, 10 ms on every Linux architecture dogsled runs on), each of the two cut down to a
 *   whole tick;
 * - `threadNs`, each live thread's time in nanoseconds (`task/TID/schedstat`, first field), which
 *   the kernel brings up to date at every scheduler tick and context switch: a thread running while
 *   it is read lags by less than one scheduler tick (1 to 4 ms at HZ 1000 to 250).
 */
export interface CpuTime {
  /** Its start time: the same pid with another start time is another process. */
  start: number;
  ticks: number;
  /**
   * Null where the kernel keeps none (built without CONFIG_SCHED_INFO: no file, or "0 0 0" in every
   * thread's), a thread's cannot be read, or the process has more threads than are read one by one.
   */
  threadNs: Map<number, number> | null;
  /** When it was read (process.hrtime.bigint(), nanoseconds). */
  at: bigint;
}

/** Threads whose times are read one by one at most: past this many, the ticks alone count. */
export const CPU_THREADS_READ_MAX = 256;

/**
 * The CPU time of `pid` now (Linux), or undefined when it is gone, a zombie or unreadable.
 * Synchronous: each read is answered from kernel memory in microseconds, and the two counters and
 * the clock are read as close together as they can be.
 */
export function readCpuTime(pid: number, root = PROC_ROOT): CpuTime | undefined {
  const dir = join(root, String(pid));
  let stat: ProcStat | null;
  try {
    stat = parseProcStat(readFileSync(join(dir, 'stat'), 'utf8'));
  } catch {
    return undefined;
  }
  if (stat === null || stat.state === 'Z') return undefined;
  const threadNs = stat.threads > CPU_THREADS_READ_MAX ? null : threadTimes(join(dir, 'task'));
  return { start: stat.start, ticks: stat.cpuTicks, threadNs, at: process.hrtime.bigint() };
}

function threadTimes(taskDir: string): Map<number, number> | null {
  let tids: string[];
  try {
    tids = readdirSync(taskDir);
  } catch {
    return null;
  }
  const times = new Map<number, number>();
  let counted = false;
  for (const tid of tids) {
    if (!/^\d+$/.test(tid)) continue;
    let text: string;
    try {
      text = readFileSync(join(taskDir, tid, 'schedstat'), 'utf8');
    } catch (error) {
      // A thread that ended since the listing; a live one without the file: the kernel keeps none.
      if (exited(error) && !existsSync(join(taskDir, tid))) continue;
      return null;
    }
    const match = /^(\d+) (\d+) (\d+)\n?$/.exec(text);
    const ns = Number(match?.[1]);
    if (!match || !Number.isSafeInteger(ns)) return null;
    if (text.trim() !== '0 0 0') counted = true;
    times.set(Number(tid), ns);
  }
  return counted ? times : null;
}

/**
 * Resident and peak resident memory of `pid` in bytes (VmRSS, VmHWM), or undefined. Synchronous
 * (childPidsSync says why): its one reader is the job supervisor's sample.
 */
export function memoryOf(pid: number, root = PROC_ROOT): { rss: number; hwm: number } | undefined {
  const text = readProcSync(join(root, String(pid), 'status'));
  return text === undefined ? undefined : parseMemory(text);
}

function parseMemory(text: string): { rss: number; hwm: number } | undefined {
  const rss = /^VmRSS:\s+(\d+) kB$/m.exec(text)?.[1];
  if (rss === undefined) return undefined;
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(text)?.[1] ?? rss;
  return { rss: Number(rss) * 1024, hwm: Number(hwm) * 1024 };
}

/** The argv of `pid` (may hold secrets: never shown or stored by default), or undefined. */
export async function commandLine(pid: number, root = PROC_ROOT): Promise<string[] | undefined> {
  const raw = await readFile(join(root, String(pid), 'cmdline'), 'utf8').catch(() => '');
  return raw === '' ? undefined : raw.replace(/\0$/, '').split('\0');
}

export async function workingDirectory(pid: number, root = PROC_ROOT): Promise<string | undefined> {
  return readlink(join(root, String(pid), 'cwd')).catch(() => undefined);
}

/** The environment `pid` started with (may hold secrets: never shown or stored), or undefined. */
export async function startEnvironment(
  pid: number,
  root = PROC_ROOT,
): Promise<Record<string, string> | undefined> {
  const raw = await readFile(join(root, String(pid), 'environ'), 'utf8').catch(() => undefined);
  if (raw === undefined) return undefined;
  const env: Record<string, string> = {};
  for (const entry of raw.split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}

/** Where `pid`'s stdout goes: a path, `pipe:[…]`, `/dev/pts/…`; undefined when unreadable. */
export async function outputTarget(pid: number, root = PROC_ROOT): Promise<string | undefined> {
  return readlink(join(root, String(pid), 'fd', '1')).catch(() => undefined);
}

/** Every process in `root` (default /proc; `ps`/`lsof` on macOS). Failing to read is `ok: false`. */
export async function readProcessTable(root?: string): Promise<ProcessTable> {
  if (root === undefined && process.platform === 'darwin') {
    return (await import('./process-table-darwin.js')).readDarwinProcessTable();
  }
  return readProcTable(root ?? PROC_ROOT);
}

/**
 * Processes read in one slice of synchronous reads. A /proc file is answered from memory, so a
 * synchronous read costs a few microseconds where each asynchronous one is four trips through
 * the thread pool (open, stat, read, close): the table of a busy host costs a few milliseconds
 * instead of tens, and the event loop gets a turn between slices.
 */
const SLICE = 64;

async function readProcTable(root: string): Promise<ProcessTable> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    return { ok: false, error: `process table: cannot read ${root} (${codeOf(error)})` };
  }
  const pids = names.filter((entry) => /^\d+$/.test(entry));
  const processes: ProcessEntry[] = [];
  for (let at = 0; at < pids.length; at += SLICE) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const name of pids.slice(at, at + SLICE)) {
      let text: string;
      try {
        text = readFileSync(join(root, name, 'stat'), 'utf8');
      } catch (error) {
        // Exited while we read: no longer part of the table.
        if (exited(error)) continue;
        return { ok: false, error: `process table: cannot read ${root}/${name}/stat (${codeOf(error)})` };
      }
      const stat = parseProcStat(text);
      if (!stat) return { ok: false, error: `process table: ${root}/${name}/stat does not parse` };
      const entry: ProcessEntry = { pid: stat.pid, ppid: stat.ppid, comm: stat.comm, threads: stat.threads };
      const cwd = workingDirectorySync(join(root, name, 'cwd'));
      processes.push(cwd === undefined ? entry : { ...entry, cwd });
    }
  }
  return { ok: true, processes };
}

function workingDirectorySync(link: string): string | undefined {
  try {
    return readlinkSync(link);
  } catch {
    return undefined;
  }
}

async function pidsIn(root: string): Promise<number[]> {
  const names = await readdir(root).catch(() => [] as string[]);
  return names.filter((name) => /^\d+$/.test(name)).map(Number);
}

function exited(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ESRCH';
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? squeezedLine(messageOf(error));
}
