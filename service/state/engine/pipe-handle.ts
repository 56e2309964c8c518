// A connection to a socket in the state dir through node:net's own pipe handle (the `pipe_wrap`
// binding) instead of node:net: loading node:net with its streams costs some 12 M instructions of a
// Node start's 87 M, more than what a hot command does with the connection (the Stop hook's poke on
// sweep.sock, a run's claim on supervisor.sock). Each use falls back to node:net where the handle
// is missing or not shaped as node:net has used it for years (a future Node may drop it).
// process.binding is deprecated in documentation only (DEP0111; a warning under
// --pending-deprecation, silenced here: a hot command prints nothing but its answer).

export interface PipeHandle {
  connect(request: ConnectRequest, path: string): number;
  readStart(): number;
  writeLatin1String(request: WriteRequest, text: string): number;
  /** A function always: the binding refuses anything else (a process abort, not an exception). */
  onread: (buffer: ArrayBuffer | undefined) => void;
  close(): void;
}

export interface ConnectRequest {
  oncomplete?: (status: number) => void;
}

interface WriteRequest {
  handle?: PipeHandle;
  oncomplete?: (status: number) => void;
}

export interface PipeBinding {
  Pipe: new (type: number) => PipeHandle;
  PipeConnectWrap: new () => ConnectRequest;
  constants: { SOCKET: number };
}

/** What a read reports besides its buffer (stream_base's shared state), and how to write. */
interface StreamBinding {
  WriteWrap: new () => WriteRequest;
  streamBaseState: Int32Array;
  kReadBytesOrError: number;
  kArrayBufferOffset: number;
}

/** The pipe handle's binding, or undefined where it is missing or not shaped as expected. */
export function pipeBinding(): PipeBinding | undefined {
  const binding = quietBinding('pipe_wrap') as Partial<PipeBinding> | undefined;
  const fits =
    typeof binding?.Pipe === 'function' &&
    typeof binding.PipeConnectWrap === 'function' &&
    typeof binding.constants?.SOCKET === 'number';
  return fits ? (binding as PipeBinding) : undefined;
}

function streamBinding(): StreamBinding | undefined {
  const binding = quietBinding('stream_wrap') as Partial<StreamBinding> | undefined;
  const fits =
    typeof binding?.WriteWrap === 'function' &&
    binding.streamBaseState instanceof Int32Array &&
    typeof binding.kReadBytesOrError === 'number' &&
    typeof binding.kArrayBufferOffset === 'number';
  return fits ? (binding as StreamBinding) : undefined;
}

function quietBinding(name: string): unknown {
  const quiet = process.noDeprecation;
  try {
    process.noDeprecation = true;
    return (process as unknown as { binding(name: string): unknown }).binding(name);
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
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
 * Connects to `path`, writes `question` (latin1) and reads until a newline or more than `maxBytes`:
 * the text heard (newline included). undefined when the pipe handle is not there as expected, and
 * the caller asks through node:net instead.
 */
export function askLine(
  path: string,
  question: string,
  options: { waitMs: number; maxBytes: number; signal?: AbortSignal | undefined },
): Promise<LineAnswer> | undefined {
  const pipe = pipeBinding();
  const stream = pipe === undefined ? undefined : streamBinding();
  if (pipe === undefined || stream === undefined) return undefined;
  return new Promise((resolve) => {
    const handle = new pipe.Pipe(pipe.constants.SOCKET);
    let heard = '';
    let settled = false;
    const done = (answer: LineAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      handle.onread = () => {};
      handle.close();
      resolve(answer);
    };
    const abort = () => done({ kind: 'aborted' });
    const timer = setTimeout(() => done({ kind: 'no answer' }), options.waitMs);
    options.signal?.addEventListener('abort', abort, { once: true });
    handle.onread = (buffer) => {
      const read = stream.streamBaseState[stream.kReadBytesOrError] ?? -1;
      if (read === 0) return;
      // Negative: the end (UV_EOF) or an error, before a whole line.
      if (read < 0 || buffer === undefined) {
        done({ kind: 'failed' });
        return;
      }
      const offset = stream.streamBaseState[stream.kArrayBufferOffset] ?? 0;
      heard += Buffer.from(buffer, offset, read).toString('latin1');
      if (heard.includes('\n') || heard.length > options.maxBytes) done({ kind: 'answer', text: heard });
    };
    const connect = new pipe.PipeConnectWrap();
    connect.oncomplete = (status) => {
      if (settled) return;
      if (status !== 0) {
        done({ kind: 'failed' });
        return;
      }
      const write = new stream.WriteWrap();
      write.handle = handle;
      // A short write to a connected socket completes at once; a late completion only reports.
      write.oncomplete = (written) => {
        if (written !== 0) done({ kind: 'failed' });
      };
      if (handle.writeLatin1String(write, question) !== 0 || handle.readStart() !== 0)
        done({ kind: 'failed' });
    };
    if (options.signal?.aborted) {
      done({ kind: 'aborted' });
      return;
    }
    let failed: number;
    try {
      failed = handle.connect(connect, path);
    } catch {
      failed = -1;
    }
    if (failed !== 0) done({ kind: 'failed' });
  });
}
