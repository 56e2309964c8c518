// A Unix socket used through the pipe handle node:net itself is built on (the `pipe_wrap` and
// `stream_wrap` bindings), for the hot commands' one use of a socket each: the lean Stop's poke on
// sweep.sock (sweep/sweep-wake.ts), the lean send's one request to Herdr
// (terminal/herdr/herdr-socket.ts) and a run's claim on supervisor.sock (jobs/warm-claim.ts).
// Loading node:net and its streams costs some 10 to 12 M instructions of a Node start's 87 M, more
// than any of these exchanges itself.
//
// process.binding is deprecated in documentation only (DEP0111; a warning under
// --pending-deprecation, silenced here: a hook prints nothing but its answer). Where a binding is
// missing or not shaped as node:net has used it for years (a future Node may drop it), the functions
// here answer undefined at once and the caller uses node:net (or, for readFdChunks, node:fs). They never throw and never word a
// failure: a connect, write or read that fails, or no answer in time, is false or undefined, and the
// caller's own path (node:net, or the full command) says what went wrong.

import { nodeBinding } from './node-binding.js';

export interface PipeHandle {
  connect(request: ConnectRequest, path: string): number;
  open(fd: number): number;
  readStart(): number;
  readStop(): number;
  writeUtf8String(request: WriteRequest, text: string): number;
  onread: (this: PipeHandle, buffer: ArrayBuffer | undefined) => void;
  close(): void;
}

interface ConnectRequest {
  oncomplete?: (status: number) => void;
}

interface WriteRequest {
  handle?: PipeHandle;
  oncomplete?: (status: number) => void;
  async?: boolean;
}

export interface PipeBinding {
  Pipe: new (type: number) => PipeHandle;
  PipeConnectWrap: new () => ConnectRequest;
  constants: { SOCKET: number };
}

export interface StreamBinding {
  WriteWrap: new () => WriteRequest;
  /** What the last read or write left: the bytes read (negative: an error or the end), their offset. */
  streamBaseState: Int32Array;
  kReadBytesOrError: number;
  kArrayBufferOffset: number;
}

export function pipeBinding(): PipeBinding | undefined {
  const pipe = nodeBinding('pipe_wrap') as Partial<PipeBinding> | undefined;
  const fits =
    typeof pipe?.Pipe === 'function' &&
    typeof pipe.PipeConnectWrap === 'function' &&
    typeof pipe.constants?.SOCKET === 'number';
  return fits ? (pipe as PipeBinding) : undefined;
}

export function streamBinding(): StreamBinding | undefined {
  const stream = nodeBinding('stream_wrap') as Partial<StreamBinding> | undefined;
  const fits =
    typeof stream?.WriteWrap === 'function' &&
    stream.streamBaseState instanceof Int32Array &&
    typeof stream.kReadBytesOrError === 'number' &&
    typeof stream.kArrayBufferOffset === 'number';
  return fits ? (stream as StreamBinding) : undefined;
}

/** What a connection settles to when it fails, runs out of time or is aborted. */
interface Ends<T> {
  failed: T;
  timedOut: T;
  aborted?: T;
  signal?: AbortSignal | undefined;
}

/**
 * Connects to `path`, then `then(handle)` runs; `done` closes the handle and settles the promise
 * once. A connection that never completes is closed by the timer.
 */
function connected<T>(
  pipe: PipeBinding,
  path: string,
  timeoutMs: number,
  ends: Ends<T>,
  then: (handle: PipeHandle, done: (value: T) => void) => void,
): Promise<T> {
  return new Promise((resolve) => {
    const handle = new pipe.Pipe(pipe.constants.SOCKET);
    let settled = false;
    const done = (value: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ends.signal?.removeEventListener('abort', abort);
      // Closing ends the reads too. (Never assign onread anything but a function: the binding
      // asserts it, and aborts the process otherwise.)
      handle.close();
      resolve(value);
    };
    const abort = () => done(ends.aborted ?? ends.failed);
    const timer = setTimeout(() => done(ends.timedOut), timeoutMs);
    if (ends.signal?.aborted) {
      abort();
      return;
    }
    ends.signal?.addEventListener('abort', abort, { once: true });
    const request = new pipe.PipeConnectWrap();
    request.oncomplete = (status) => {
      if (status !== 0) done(ends.failed);
      else if (!settled) then(handle, done);
    };
    let status: number;
    try {
      status = handle.connect(request, path);
    } catch {
      status = -1;
    }
    if (status !== 0) done(ends.failed);
  });
}

/**
 * Whether a connection to `path` was made within `timeoutMs` (then closed at once), or undefined
 * when the binding is not there as expected.
 */
export function pipeTouch(path: string, timeoutMs: number): Promise<boolean> | undefined {
  const pipe = pipeBinding();
  if (pipe === undefined) return undefined;
  return connected(pipe, path, timeoutMs, { failed: false, timedOut: false }, (_handle, done) => done(true));
}

/**
 * Sends `line` to `path` and answers the first line that comes back (without its newline), or the
 * text up to the end when the server closes without one; undefined for no text, a failure, more
 * than `maxBytes` or nothing within `timeoutMs`. Undefined at once (not a promise) when the
 * bindings are not there as expected.
 */
export function pipeExchange(
  path: string,
  line: string,
  options: { timeoutMs: number; maxBytes: number },
): Promise<string | undefined> | undefined {
  const pipe = pipeBinding();
  const stream = pipe && streamBinding();
  if (pipe === undefined || stream === undefined) return undefined;
  const { streamBaseState: state, kReadBytesOrError, kArrayBufferOffset } = stream;
  const ends = { failed: undefined, timedOut: undefined };
  return connected<string | undefined>(pipe, path, options.timeoutMs, ends, (handle, done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const text = () => Buffer.concat(chunks).toString('utf8');
    handle.onread = (buffer) => {
      const read = state[kReadBytesOrError] ?? -1;
      // Zero is a read that found nothing yet; below zero the end (or a failure): what came is all.
      if (read === 0) return;
      if (read < 0 || buffer === undefined) {
        done(size === 0 ? undefined : text());
        return;
      }
      const chunk = Buffer.from(buffer, state[kArrayBufferOffset] ?? 0, read);
      const newline = chunk.indexOf(0x0a);
      chunks.push(newline === -1 ? chunk : chunk.subarray(0, newline));
      size += chunk.length;
      if (newline !== -1) done(text());
      else if (size > options.maxBytes) done(undefined);
    };
    // Kept until the write completes: the handle calls it when the write did not finish at once.
    const request = new stream.WriteWrap();
    request.handle = handle;
    request.async = false;
    request.oncomplete = (status) => {
      if (status < 0) done(undefined);
    };
    try {
      if (handle.writeUtf8String(request, line) !== 0 || handle.readStart() !== 0) done(undefined);
    } catch {
      done(undefined);
    }
  });
}

/** What one question on a socket came to: the answer's text, or why there is none. */
export type LineAnswer =
  | { kind: 'answer'; text: string }
  /** Nothing to connect to, refused, or the peer hung up before a whole line. */
  | { kind: 'failed' }
  /** No whole answer within the wait (the peer is frozen or starved). */
  | { kind: 'no answer' }
  | { kind: 'aborted' };

/**
 * Connects to `path`, writes `question` and reads until a newline or more than `maxBytes`: the text
 * heard (newline included), or why none (a run's claim on supervisor.sock tells a refusal from a
 * frozen supervisor). Undefined at once (not a promise) when the bindings are not there as expected.
 */
export function askLine(
  path: string,
  question: string,
  options: { waitMs: number; maxBytes: number; signal?: AbortSignal | undefined },
): Promise<LineAnswer> | undefined {
  const pipe = pipeBinding();
  const stream = pipe && streamBinding();
  if (pipe === undefined || stream === undefined) return undefined;
  const { streamBaseState: state, kReadBytesOrError, kArrayBufferOffset } = stream;
  const ends: Ends<LineAnswer> = {
    failed: { kind: 'failed' },
    timedOut: { kind: 'no answer' },
    aborted: { kind: 'aborted' },
    signal: options.signal,
  };
  return connected(pipe, path, options.waitMs, ends, (handle, done) => {
    let heard = '';
    handle.onread = (buffer) => {
      const read = state[kReadBytesOrError] ?? -1;
      if (read === 0) return;
      // Negative: the end (UV_EOF) or an error, before a whole line.
      if (read < 0 || buffer === undefined) {
        done({ kind: 'failed' });
        return;
      }
      heard += Buffer.from(buffer, state[kArrayBufferOffset] ?? 0, read).toString('latin1');
      if (heard.includes('\n') || heard.length > options.maxBytes) done({ kind: 'answer', text: heard });
    };
    const request = new stream.WriteWrap();
    request.handle = handle;
    request.async = false;
    request.oncomplete = (status) => {
      if (status < 0) done({ kind: 'failed' });
    };
    try {
      if (handle.writeUtf8String(request, question) !== 0 || handle.readStart() !== 0)
        done({ kind: 'failed' });
    } catch {
      done({ kind: 'failed' });
    }
  });
}

/**
 * Reads the pipe or socket `fd` (a hook's stdin) in the event loop, as process.stdin would but
 * without node:net and its streams, and without node:fs's reads, which start libuv's pool of four
 * threads for one small read: `take` gets each chunk and answers true when it has what it needs;
 * resolves then, at the end of input or at a failure. The handle is stopped, never closed, so the
 * descriptor stays `fd` (a closed 0 would be the next file opened). Like process.stdin, it leaves
 * the descriptor non-blocking. Undefined at once when the bindings are not there as expected, or
 * the handle does not take `fd`.
 */
export function readFdChunks(fd: number, take: (chunk: Buffer) => boolean): Promise<void> | undefined {
  const pipe = pipeBinding();
  const stream = pipe && streamBinding();
  if (pipe === undefined || stream === undefined || typeof pipe.Pipe.prototype.open !== 'function') {
    return undefined;
  }
  const { streamBaseState: state, kReadBytesOrError, kArrayBufferOffset } = stream;
  const handle = new pipe.Pipe(pipe.constants.SOCKET);
  let opened = false;
  try {
    opened = handle.open(fd) === 0;
  } catch {
    // As refused.
  }
  if (!opened) {
    // A handle that holds no descriptor closes nothing of ours.
    handle.close();
    return undefined;
  }
  let resolve: () => void = () => {};
  const ended = new Promise<void>((settle) => {
    resolve = settle;
  });
  const done = () => {
    try {
      handle.readStop();
    } catch {
      // Stopped already.
    }
    resolve();
  };
  handle.onread = (buffer) => {
    const read = state[kReadBytesOrError] ?? -1;
    if (read === 0) return;
    // Negative: the end (UV_EOF) or a failure: what came is all.
    if (read < 0 || buffer === undefined) return done();
    if (take(Buffer.from(buffer, state[kArrayBufferOffset] ?? 0, read))) done();
  };
  try {
    // Nothing is read before the loop runs again, so a refusal here has taken nothing.
    if (handle.readStart() === 0) return ended;
  } catch {
    // As refused.
  }
  return undefined;
}

/** A connection that carries lines both ways (a pane's handoff on supervisor.sock). */
export interface LineChannel {
  /** Writes `text`; a failed write ends the channel (`onEnd`). */
  send(text: string): void;
  /** Closes the connection; `onEnd` is not called for it. */
  close(): void;
}

export interface LineChannelOptions {
  connectMs: number;
  /** A line longer than this (without a newline) ends the channel. */
  maxLineBytes: number;
  /** Each line heard, without its newline, as UTF-8. */
  onLine: (line: string) => void;
  /** Once, when the peer hangs up, a read or write fails, or a line is too long. */
  onEnd: () => void;
}

/**
 * Connects to `path` and carries lines both ways until either side closes: the channel once
 * connected, undefined when the connection fails or takes longer than `connectMs`. Undefined at
 * once (not a promise) when the bindings are not there as expected.
 */
export function openLineChannel(
  path: string,
  options: LineChannelOptions,
): Promise<LineChannel | undefined> | undefined {
  const pipe = pipeBinding();
  const stream = pipe && streamBinding();
  if (pipe === undefined || stream === undefined) return undefined;
  const { streamBaseState: state, kReadBytesOrError, kArrayBufferOffset } = stream;
  return new Promise((resolve) => {
    const handle = new pipe.Pipe(pipe.constants.SOCKET);
    let open = true;
    let connectedYet = false;
    const close = () => {
      if (!open) return;
      open = false;
      clearTimeout(timer);
      handle.close();
    };
    const end = () => {
      if (!open) return;
      close();
      options.onEnd();
    };
    const timer = setTimeout(() => {
      if (connectedYet) return;
      close();
      resolve(undefined);
    }, options.connectMs);
    const pending: Buffer[] = [];
    let pendingBytes = 0;
    const channel: LineChannel = {
      send(text) {
        if (!open) return;
        const request = new stream.WriteWrap();
        request.handle = handle;
        request.async = false;
        request.oncomplete = (status) => {
          if (status < 0) end();
        };
        try {
          if (handle.writeUtf8String(request, text) !== 0) end();
        } catch {
          end();
        }
      },
      close,
    };
    handle.onread = (buffer) => {
      const read = state[kReadBytesOrError] ?? -1;
      if (read === 0) return;
      if (read < 0 || buffer === undefined) return end();
      let chunk = Buffer.from(buffer, state[kArrayBufferOffset] ?? 0, read);
      for (let newline = chunk.indexOf(0x0a); newline !== -1 && open; newline = chunk.indexOf(0x0a)) {
        pending.push(chunk.subarray(0, newline));
        const line = Buffer.concat(pending).toString('utf8');
        pending.length = 0;
        pendingBytes = 0;
        chunk = chunk.subarray(newline + 1);
        options.onLine(line);
      }
      if (!open || chunk.length === 0) return;
      // The buffer is the binding's: a partial line is copied before it is kept.
      pending.push(Buffer.from(chunk));
      pendingBytes += chunk.length;
      if (pendingBytes > options.maxLineBytes) end();
    };
    const request = new pipe.PipeConnectWrap();
    request.oncomplete = (status) => {
      if (!open) return;
      if (status !== 0) {
        close();
        resolve(undefined);
        return;
      }
      connectedYet = true;
      clearTimeout(timer);
      try {
        if (handle.readStart() !== 0) {
          close();
          resolve(undefined);
          return;
        }
      } catch {
        close();
        resolve(undefined);
        return;
      }
      resolve(channel);
    };
    let status: number;
    try {
      status = handle.connect(request, path);
    } catch {
      status = -1;
    }
    if (status !== 0) {
      close();
      resolve(undefined);
    }
  });
}
