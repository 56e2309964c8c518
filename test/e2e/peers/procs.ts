// Processes the peer setup started, by id: the tree under an sshd (its per-connection children call
// setsid, so a process group does not reach them), stopped, frozen or thawed together. Nothing is
// found or signalled by name.

import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { waitFor } from '../../helpers/wait.js';

export const execFileP = promisify(execFile);

/** Runs argv; rejects with its stderr on a non-zero exit. */
export async function run(argv: readonly string[], options: { input?: string } = {}): Promise<string> {
  const [file, ...args] = argv;
  if (!file) throw new Error('run: empty argv');
  try {
    const child = execFileP(file, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    if (options.input !== undefined) child.child.stdin?.end(options.input);
    const { stdout } = await child;
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${argv.join(' ')}: ${(e.stderr || e.message).trim()}`);
  }
}

/** `pid` and every process below it (children before their own children are listed). */
export async function processTree(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(ppid)) continue;
    const list = parents.get(ppid) ?? [];
    list.push(Number(name));
    parents.set(ppid, list);
  }
  const tree: number[] = [];
  const walk = (p: number): void => {
    tree.push(p);
    for (const child of parents.get(p) ?? []) walk(child);
  };
  walk(pid);
  return tree;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process as it was when signalled: its pid and start time, so a reused pid is never taken for it. */
export interface Signalled {
  pid: number;
  started: string;
}

/** Signals `pid` and every process below it; answers those it reached. */
export async function signalTree(pid: number, signal: NodeJS.Signals): Promise<Signalled[]> {
  const reached: Signalled[] = [];
  for (const p of await processTree(pid)) {
    const started = await startTime(p);
    try {
      process.kill(p, signal);
      if (started !== undefined) reached.push({ pid: p, started });
    } catch {
      // Gone already.
    }
  }
  return reached;
}

/** Signals each process still running that `signalTree` reached (not a later one with its pid). */
export async function signalAgain(processes: readonly Signalled[], signal: NodeJS.Signals): Promise<void> {
  for (const { pid, started } of processes) {
    if ((await startTime(pid)) !== started) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  }
}

/** Field 22 of /proc/PID/stat (start time in clock ticks after boot), or undefined once it is gone. */
async function startTime(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** SIGTERM to the tree, SIGKILL to what is left after `graceMs`; resolves when `pid` is gone. */
export async function stopTree(pid: number, graceMs = 3_000): Promise<void> {
  const tree = await processTree(pid);
  for (const p of tree) {
    try {
      process.kill(p, 'SIGCONT');
      process.kill(p, 'SIGTERM');
    } catch {
      // Gone already.
    }
  }
  await waitFor('the tree to end', () => !tree.some(alive), { timeoutMs: graceMs, intervalMs: 20 }).catch(
    () => undefined,
  );
  for (const p of tree.filter(alive)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}
