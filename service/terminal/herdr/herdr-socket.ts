// The Herdr socket client: exactly one request per connection (Herdr reads one line, answers one
// line, closes), newline-delimited JSON, a fresh request id per call and a client deadline, since
// the server has none. A missing or refusing socket fails at once as `unreachable`; anything but one
// well-formed envelope in reply is `protocol`.

import { pipeExchange } from '../../process/pipe-handle.js';
import { TerminalError } from '../terminal-errors.js';
import { type Reply, replyOf } from './envelope.js';

export interface SocketCallOptions {
  /** Client deadline; undefined waits as long as the server holds the call (waits only). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The last reply to the same call, to hand back again when Herdr's bytes are the same. */
  same?: SameReply;
}

/**
 * A call's last reply and its bytes after the envelope's id. A reply whose line is, byte for byte,
 * `{"id":"<this call's id>",` and then the bytes of the last one is the last reply (the same object):
 * no text, no JSON parse, no garbage; the service lists Herdr every tick and a quiet session answers
 * the same 50 KB each time. Any other line (another order of fields, a changed byte) is parsed as
 * always and becomes the memo.
 */
export interface SameReply {
  body?: Buffer;
  reply?: Reply;
}

/** Replies are one JSON line; the listing of a large session is well under this. */
const MAX_REPLY_BYTES = 64 * 1024 * 1024;

let counter = 0;

/** Why a connect to `path` failed, phrased for `needs Herdr (...)` and error messages. */
export function connectFailure(path: string, errno: string | undefined): string {
  switch (errno) {
    case 'ENOENT':
      return `socket ${path} does not exist`;
    case 'ECONNREFUSED':
      return `socket ${path} refused the connection`;
    case 'EACCES':
    case 'EPERM':
      return `socket ${path} is not accessible`;
    default:
      return `socket ${path} is not a usable socket (${errno ?? 'unknown error'})`;
  }
}

/**
 * One call for a lean command (listing-glance.ts): the reply, or undefined for anything else (no
 * socket, no reply in time, a reply that is not this call's), which the full command meets again
 * through socketCall and words. Over node:net's own pipe handle (process/pipe-handle.ts), which
 * spares the command node:net and its streams; through socketCall where that handle is missing.
 */
export async function quickSocketCall(
  path: string,
  method: string,
  params: Record<string, unknown>,
  timeoutMs: number,
): Promise<Reply | undefined> {
  const id = `dogsled:${process.pid}:${++counter}`;
  const exchange = pipeExchange(path, `${JSON.stringify({ id, method, params })}\n`, {
    timeoutMs,
    maxBytes: MAX_REPLY_BYTES,
  });
  if (exchange === undefined) return socketCall(path, method, params, { timeoutMs }).catch(() => undefined);
  const line = await exchange;
  if (line === undefined || line.trim() === '') return undefined;
  try {
    return replyOf(JSON.parse(line), id, method);
  } catch {
    return undefined;
  }
}

export function socketCall(
  path: string,
  method: string,
  params: Record<string, unknown>,
  options: SocketCallOptions = {},
): Promise<Reply> {
  const id = `dogsled:${process.pid}:${++counter}`;
  return new Promise<Reply>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    const socket = process.getBuiltinModule('node:net').createConnection({ path });
    const chunks: Buffer[] = [];
    let size = 0;
    let connected = false;
    let settled = false;

    const finish = (error: unknown, reply?: Reply) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Destroying the socket also cancels a server-side wait (Herdr polls for the close).
      socket.destroy();
      if (error) reject(error);
      else resolve(reply!);
    };
    const fail = (code: 'protocol' | 'unreachable' | 'timeout', why: string, cause?: unknown) =>
      finish(new TerminalError(code, `herdr ${method}: ${why}`, { method, cause }));
    const onAbort = () => finish(options.signal?.reason);

    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => fail('timeout', `no reply within ${options.timeoutMs} ms`), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ id, method, params })}\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      const newline = chunk.indexOf(0x0a);
      chunks.push(newline === -1 ? chunk : chunk.subarray(0, newline));
      size += chunk.length;
      if (newline !== -1) settle(Buffer.concat(chunks), false);
      else if (size > MAX_REPLY_BYTES) fail('protocol', `reply larger than ${MAX_REPLY_BYTES} bytes`);
    });
    socket.on('end', () => {
      // A server may close right after a reply without its newline; an empty or cut line is not one.
      const line = Buffer.concat(chunks);
      if (line.toString('utf8').trim() === '') fail('protocol', 'connection closed without a reply');
      else settle(line, true);
    });
    socket.on('close', () => fail('protocol', 'connection closed without a reply'));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected) fail('unreachable', connectFailure(path, error.code), error);
      else fail('protocol', `connection failed before the reply (${error.code ?? error.message})`, error);
    });

    function settle(bytes: Buffer, atEnd: boolean) {
      const memo = options.same;
      const body = memo ? afterId(bytes, id) : undefined;
      if (memo?.reply !== undefined && body !== undefined && memo.body?.equals(body)) {
        finish(undefined, memo.reply);
        return;
      }
      const line = bytes.toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        const what = atEnd ? 'truncated reply' : 'malformed reply';
        fail('protocol', `${what}: ${JSON.stringify(line.slice(0, 80))}`);
        return;
      }
      let reply: Reply;
      try {
        reply = replyOf(value, id, method);
      } catch (error) {
        finish(error);
        return;
      }
      if (memo) {
        // Only a reply that came with this call's id leading its line is remembered.
        memo.body = body;
        memo.reply = body === undefined ? undefined : reply;
      }
      finish(undefined, reply);
    }
  });
}

/** The bytes after `{"id":"<id>",` when the line starts so, else undefined. */
function afterId(line: Buffer, id: string): Buffer | undefined {
  const head = Buffer.from(`{"id":${JSON.stringify(id)},`);
  return line.length > head.length && line.subarray(0, head.length).equals(head)
    ? line.subarray(head.length)
    : undefined;
}
