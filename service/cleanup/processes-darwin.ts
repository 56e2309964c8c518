// The process table on macOS, which has no /proc: programs and parents from `ps`, working directories
// from `lsof`. Without this every checkout would be held on a Mac (an unreadable table is a hold).
// A process whose directory lsof cannot see (another user's) has no cwd, as on Linux.

import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import { messageOf } from '../errors.js';
import { oneLine } from '../state/quarantine.js';
import type { ProcessEntry, ProcessTable } from './processes.js';

const run = promisify(execFile);
const READ_TIMEOUT_MS = 30_000;
/** ps does not say how many threads a process has: treat each as possibly multi-threaded. */
const UNKNOWN_THREADS = 2;

/** `ps -axo pid=,ppid=,comm=`: pid, parent and the program (a full path on macOS). */
export function parsePsTable(text: string): Map<number, { ppid: number; comm: string }> | null {
  const table = new Map<number, { ppid: number; comm: string }>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!match) return null;
    const comm = oneLine(basename((match[3] ?? '').trim()), 64);
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

export async function readDarwinProcessTable(): Promise<ProcessTable> {
  let ps: string;
  try {
    ps = (await run('ps', ['-axo', 'pid=,ppid=,comm='], { timeout: READ_TIMEOUT_MS, maxBuffer: 64 << 20 }))
      .stdout;
  } catch (error) {
    return { ok: false, error: `process table: ps failed (${oneLine(messageOf(error), 120)})` };
  }
  const table = parsePsTable(ps);
  if (!table) return { ok: false, error: 'process table: ps output does not parse' };
  let cwds = new Map<number, string>();
  try {
    const lsof = await run('lsof', ['-nP', '-a', '-d', 'cwd', '-Fpn'], {
      timeout: READ_TIMEOUT_MS,
      maxBuffer: 64 << 20,
    });
    cwds = parseLsofCwds(lsof.stdout);
  } catch (error) {
    // lsof exits 1 when some processes could not be inspected but still prints the rest.
    const stdout = (error as { stdout?: string }).stdout;
    if (typeof stdout !== 'string' || stdout === '') {
      return { ok: false, error: `process table: lsof failed (${oneLine(messageOf(error), 120)})` };
    }
    cwds = parseLsofCwds(stdout);
  }
  const processes: ProcessEntry[] = [];
  for (const [pid, { ppid, comm }] of table) {
    const cwd = cwds.get(pid);
    const entry: ProcessEntry = { pid, ppid, comm, threads: UNKNOWN_THREADS };
    processes.push(cwd === undefined ? entry : { ...entry, cwd });
  }
  return { ok: true, processes };
}
