// A job pane's wrapper hands its job to the supervisor `serve` keeps warm (exec-warm.ts) instead of
// starting a second Node for a supervisor of its own: one connection to supervisor.sock carrying
// the pane's claim (core/jobs/warm-handoff-lines.ts: the job, the `-- CMD` given, the wrapper's
// environment, which is what a supervisor it started would have inherited), kept open until the
// job ends. The wrapper stays the pane's foreground process: it shows the log, passes SIGTERM and
// SIGINT on as `term`, prints the supervisor's warnings on the pane's stderr and exits with the
// status the supervisor sends. The supervisor says `ready`, the wrapper `go` unless it gave up
// already, and only then is the job claimed (`ok PID`). Anything but `ready` within the wait (no socket, a directory, FIFO
// or dead socket in its place, a refusal, a frozen or starved supervisor) is undefined, and the
// wrapper starts its own supervisor as before; a socket that gave no answer is removed, as a run's
// claim removes it (jobs/warm-claim.ts), and a warm one that answers late finds the job started or
// ended and runs nothing (the record's start claim).

import { lstatSync, unlinkSync } from 'node:fs';
import { DogsledError } from '../../core/common/errors.js';
import {
  GO_LINE,
  HANDOFF_LINE_MAX_BYTES,
  PANE_CLAIM_MAX_BYTES,
  paneClaimLine,
  parseSupervisorLine,
  TERMINATE_LINE,
} from '../../core/jobs/warm-handoff-lines.js';
import { type LineChannel, type LineChannelOptions, openLineChannel } from '../../process/pipe-handle.js';
import type { ProcessIO } from '../../state/io.js';
import { WARM_CLAIM_MS } from '../warm-claim.js';

/** How the handed job's supervisor ended, as the wrapper heard it. */
export type HandoffEnd =
  | { kind: 'exit'; code: number }
  | { kind: 'error'; error: DogsledError }
  /** The connection ended without an end: the supervisor died (or was killed) before its end. */
  | { kind: 'lost' };

export interface Handoff {
  /** The warm supervisor's pid, which claimed the job. */
  pid: number;
  ended: Promise<HandoffEnd>;
  /** Asks the supervisor to end the job (`wrapper terminated`), as SIGTERM to it would. */
  terminate(): void;
}

/**
 * Hands job `id` to the warm supervisor: the handoff once it claimed the job, else undefined
 * (within `waitMs`, connection included) and nothing of the job was touched by this process.
 */
export async function handOff(
  io: Pick<ProcessIO, 'env' | 'paths' | 'warn'>,
  id: string,
  command: readonly string[] | undefined,
  waitMs: number = WARM_CLAIM_MS,
): Promise<Handoff | undefined> {
  const path = io.paths.supervisorSock;
  const before = socketAt(path);
  if (before === undefined) return undefined;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(io.env)) if (value !== undefined) env[key] = value;
  const claim = paneClaimLine({ id, command: command === undefined ? null : [...command], env });
  if (Buffer.byteLength(claim) > PANE_CLAIM_MAX_BYTES) return undefined;

  let answer: (pid: number | 'refused' | 'no answer') => void = () => {};
  const answered = new Promise<number | 'refused' | 'no answer'>((resolve) => {
    answer = resolve;
  });
  let end: (how: HandoffEnd) => void = () => {};
  const ended = new Promise<HandoffEnd>((resolve) => {
    end = resolve;
  });
  let pid: number | undefined;
  let channel: LineChannel | undefined;
  let gaveUp = false;
  let saidGo = false;
  const finish = (how: HandoffEnd) => {
    channel?.close();
    end(how);
  };
  const options: LineChannelOptions = {
    connectMs: waitMs,
    maxLineBytes: HANDOFF_LINE_MAX_BYTES,
    onLine: (text) => {
      const line = parseSupervisorLine(text);
      if (pid === undefined) {
        if (line?.kind === 'ready') {
          // Within the wait: from here on this supervisor alone may take the job, however long it
          // takes (a frozen one is then like a frozen supervisor of the wrapper's own).
          if (gaveUp || saidGo) return;
          saidGo = true;
          clearTimeout(timer);
          channel?.send(GO_LINE);
        } else if (line?.kind === 'ok' && saidGo) {
          pid = line.pid;
          answer(line.pid);
        } else {
          answer('refused');
        }
        return;
      }
      if (line?.kind === 'warn') io.warn(line.text);
      else if (line?.kind === 'exit') finish({ kind: 'exit', code: line.code });
      else if (line?.kind === 'error')
        finish({
          kind: 'error',
          error: new DogsledError(line.message, { exitCode: line.exitCode, hint: line.hint }),
        });
    },
    onEnd: () => {
      if (pid === undefined) answer('refused');
      else end({ kind: 'lost' });
    },
  };
  const timer = setTimeout(() => {
    gaveUp = true;
    answer('no answer');
  }, waitMs);
  channel = await (openLineChannel(path, options) ?? netLineChannel(path, options));
  let said: number | 'refused' | 'no answer';
  if (channel === undefined) {
    said = 'refused';
  } else {
    channel.send(claim);
    said = await answered;
  }
  clearTimeout(timer);
  const accepted = channel;
  if (typeof said === 'number' && accepted !== undefined) {
    return { pid: said, ended, terminate: () => accepted.send(TERMINATE_LINE) };
  }
  channel?.close();
  if (said === 'no answer') {
    // Stopped or starved: the next pane or launch must not wait on it too. Only the socket this
    // wrapper waited on goes (a new one in its place is another supervisor's).
    const now = socketAt(path);
    if (now !== undefined && now.ino === before.ino && now.dev === before.dev) {
      try {
        unlinkSync(path);
      } catch {
        // Gone already.
      }
    }
  }
  return undefined;
}

function socketAt(path: string): { ino: number; dev: number } | undefined {
  try {
    const found = lstatSync(path, { throwIfNoEntry: false });
    return found?.isSocket() ? { ino: found.ino, dev: found.dev } : undefined;
  } catch {
    return undefined;
  }
}

/** The same channel through node:net, where the pipe handle's bindings are not as expected. */
function netLineChannel(path: string, options: LineChannelOptions): Promise<LineChannel | undefined> {
  return new Promise((resolve) => {
    const socket = process.getBuiltinModule('node:net').connect(path);
    let open = true;
    let connected = false;
    let pending = '';
    const close = () => {
      open = false;
      clearTimeout(timer);
      socket.destroy();
    };
    const end = () => {
      if (!open) return;
      close();
      if (connected) options.onEnd();
      else resolve(undefined);
    };
    const timer = setTimeout(end, options.connectMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      clearTimeout(timer);
      resolve({
        send: (text) => {
          if (open) socket.write(text);
        },
        close,
      });
    });
    socket.on('data', (chunk: string) => {
      pending += chunk;
      for (let newline = pending.indexOf('\n'); newline !== -1 && open; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        options.onLine(line);
      }
      if (open && pending.length > options.maxLineBytes) end();
    });
    socket.on('end', end);
    socket.on('error', end);
    socket.on('close', end);
  });
}
