// The process table on macOS, which has no /proc: programs and parents from `ps`, working
// directories from `lsof`, children from a `ps` listing. Without this every checkout would be held
// on a Mac (an unreadable table is a hold). A process whose directory lsof cannot see (another
// user's) has no cwd, as on Linux. Loaded only on macOS.

import { basename } from 'node:path';
import { squeezedLine } from '../core/text/clean.js';
import type { ProcessEntry, ProcessTable } from './process-table.js';
import { endingOf, type RunResult, runProcess, succeeded } from './run-process.js';

const READ_TIMEOUT_MS = 30_000;
const PS_CHILDREN_TIMEOUT_MS = 5_000;
/** ps does not say how many threads a process has: treat each as possibly multi-threaded. */
const UNKNOWN_THREADS = 2;

/** `ps -axo pid=,ppid=,comm=`: pid, parent and the program (a full path on macOS). */
export function parsePsTable(text: string): Map<number, { ppid: number; comm: string }> | null {
  const table = new Map<number, { ppid: number; comm: string }>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!match) return null;
    const comm = squeezedLine(basename((match[3] ?? '').trim()), 64);
    table.set(Number(match[1]), { ppid: Number(match[2]), comm });
  }
  return table;
}

/** `lsof -nP -a -d cwd -Fpn`: `p<pid>` then `n<path>` lines, one pair per process. */
export function parseLsofCwds(text: string): Map<number, string> {
  const cwds = new Map<number, string>();
  let pid: number | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('p')) pid = Number(line.slice(1));
    else if (line.startsWith('n') && pid !== null && Number.isSafeInteger(pid)) cwds.set(pid, line.slice(1));
  }
  return cwds;
}

/** The program names of `pid`'s children in `ps -o ppid= -o comm=` output (comm may be a path). */
export function parsePsChildren(stdout: string, pid: number): string[] {
  const names: string[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^\s*(\d+)\s+(.+)$/.exec(line);
    if (match && Number(match[1]) === pid) names.push(basename((match[2] ?? '').trim()));
  }
  return names;
}

export async function readDarwinProcessTable(): Promise<ProcessTable> {
  const ps = await run('ps', ['-axo', 'pid=,ppid=,comm='], READ_TIMEOUT_MS);
  if (typeof ps === 'string' || !succeeded(ps)) {
    return { ok: false, error: `process table: ps failed (${why(ps)})` };
  }
  const table = parsePsTable(ps.stdout.toString('utf8'));
  if (!table) return { ok: false, error: 'process table: ps output does not parse' };
  const lsof = await run('lsof', ['-nP', '-a', '-d', 'cwd', '-Fpn'], READ_TIMEOUT_MS);
  // lsof exits 1 when some processes could not be inspected but still prints the rest.
  const listed = typeof lsof === 'string' || lsof.truncated ? '' : lsof.stdout.toString('utf8');
  if (listed === '' && (typeof lsof === 'string' || !succeeded(lsof))) {
    return { ok: false, error: `process table: lsof failed (${why(lsof)})` };
  }
  const cwds = parseLsofCwds(listed);
  const processes: ProcessEntry[] = [];
  for (const [pid, { ppid, comm }] of table) {
    const cwd = cwds.get(pid);
    const entry: ProcessEntry = { pid, ppid, comm, threads: UNKNOWN_THREADS };
    processes.push(cwd === undefined ? entry : { ...entry, cwd });
  }
  return { ok: true, processes };
}

/** The program names of `pid`'s children, or null when ps cannot list them. */
export async function darwinChildNames(pid: number): Promise<string[] | null> {
  const ps = await run('ps', ['-A', '-o', 'ppid=', '-o', 'comm='], PS_CHILDREN_TIMEOUT_MS);
  if (typeof ps === 'string' || !succeeded(ps)) return null;
  return parsePsChildren(ps.stdout.toString('utf8'), pid);
}

/** The run, or why it could not start. */
async function run(file: string, args: string[], timeoutMs: number): Promise<RunResult | string> {
  try {
    return await runProcess(file, args, { env: process.env, timeoutMs });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function why(result: RunResult | string): string {
  if (typeof result === 'string') return squeezedLine(result, 120);
  const stderr = result.stderr.toString('utf8').trim().split('\n')[0] ?? '';
  return squeezedLine(`${endingOf(result)}${stderr === '' ? '' : `: ${stderr}`}`, 120);
}
