// A launch's side of the warm supervisor (exec-warm.ts): hand it a job whose files are written, by
// one connection to supervisor.sock, and learn its pid. Every failure (no service, no socket, a
// directory or FIFO in its place, refused, a stale socket, a supervisor too slow to answer or frozen)
// is undefined, and the launch starts a supervisor the usual way; a warm one that answers late finds
// the job started by then and runs nothing (the record's start claim refuses it). One that does not
// answer in time loses its socket, so the next launch does not wait on it as well.

import { lstatSync, type Stats } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { askLine, type LineAnswer } from '../process/pipe-handle.js';
import type { StatePaths } from '../state/paths.js';

/** How long a launch waits for the warm supervisor's answer before starting its own. */
export const WARM_CLAIM_MS = 2_000;
const ANSWER = /^ok (\d+)\n/;
/** An answer is `ok PID` or `refused`; past this many bytes without a newline it is neither. */
const CLAIM_ANSWER_BYTES = 64;

/** Whether a warm supervisor seems to listen (supervisor.sock is a socket); the claim still decides. */
export async function warmListening(paths: StatePaths): Promise<boolean> {
  return socketStat(paths.supervisorSock)?.isSocket() === true;
}

/**
 * What is at `path`, or undefined. Synchronous: a run asks it twice on its path, and node:fs/promises
 * (with readline and the thread pool it brings) is loaded only off that path.
 */
function socketStat(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Hands job `jobId` to the warm supervisor: its pid once it has claimed the job, else undefined. */
export async function claimWarm(
  paths: StatePaths,
  jobId: string,
  signal?: AbortSignal,
  waitMs: number = WARM_CLAIM_MS,
): Promise<number | undefined> {
  const before = socketStat(paths.supervisorSock);
  if (signal?.aborted || before?.isSocket() !== true) return undefined;
  const pid = await claimOnce(paths.supervisorSock, jobId, signal, waitMs);
  if (pid === 'no answer') {
    // Stopped or starved: later launches must not wait on it too. Only the socket this launch
    // waited on goes (a new one in its place is another supervisor's); when that supervisor
    // resumes it still reads this claim, is refused the start, and the service replaces it.
    const now = socketStat(paths.supervisorSock);
    if (now?.isSocket() && now.ino === before.ino && now.dev === before.dev) {
      await unlink(paths.supervisorSock).catch(() => undefined);
    }
    return undefined;
  }
  return pid;
}

/** The claim through the pipe handle (process/pipe-handle.ts: no node:net on a run's path), else node:net. */
async function claimOnce(
  path: string,
  jobId: string,
  signal: AbortSignal | undefined,
  waitMs: number,
): Promise<number | undefined | 'no answer'> {
  const asked = askLine(path, `${jobId}\n`, { waitMs, maxBytes: CLAIM_ANSWER_BYTES, signal });
  if (asked === undefined) return claimWithNet(path, jobId, signal, waitMs);
  return pidOf(await asked);
}

function pidOf(answer: LineAnswer): number | undefined | 'no answer' {
  if (answer.kind === 'no answer') return 'no answer';
  const pid = answer.kind === 'answer' ? ANSWER.exec(answer.text)?.[1] : undefined;
  return pid === undefined ? undefined : Number(pid);
}

function claimWithNet(
  path: string,
  jobId: string,
  signal: AbortSignal | undefined,
  waitMs: number,
): Promise<number | undefined | 'no answer'> {
  return new Promise((resolve) => {
    const socket = process.getBuiltinModule('node:net').connect(path);
    let heard = '';
    const done = (pid: number | undefined | 'no answer') => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      socket.destroy();
      resolve(pid);
    };
    const abort = () => done(undefined);
    const timer = setTimeout(() => done('no answer'), waitMs);
    signal?.addEventListener('abort', abort, { once: true });
    socket.setEncoding('latin1');
    socket.on('connect', () => socket.write(`${jobId}\n`));
    socket.on('data', (chunk: string) => {
      heard += chunk;
      if (heard.includes('\n') || heard.length > CLAIM_ANSWER_BYTES) {
        const pid = ANSWER.exec(heard)?.[1];
        done(pid === undefined ? undefined : Number(pid));
      }
    });
    socket.on('end', abort);
    socket.on('error', abort);
  });
}

/**
 * Whether a warm supervisor listens and answers now (doctor): an empty claim, which it refuses
 * ("refused") and which takes nothing from it; false when nothing answers within `waitMs`.
 */
export async function warmAnswers(paths: StatePaths, waitMs: number = WARM_CLAIM_MS): Promise<boolean> {
  if (!(await warmListening(paths))) return false;
  return new Promise((resolve) => {
    const socket = process.getBuiltinModule('node:net').connect(paths.supervisorSock);
    let heard = '';
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.setEncoding('latin1');
    socket.on('connect', () => socket.write('\n'));
    socket.on('data', (chunk: string) => {
      heard += chunk;
      if (heard.includes('\n')) done(heard === 'refused\n');
    });
    socket.on('end', () => done(false));
    socket.on('error', () => done(false));
  });
}
