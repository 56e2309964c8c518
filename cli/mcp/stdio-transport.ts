// `dogsled mcp`'s stdio transport (the SDK's Transport interface), in place of the SDK's own: that
// one holds at most 10 MiB of unread input and, past it, closes itself, which the server took for
// the end of input (exit 0, nothing said, the client's next write an EPIPE); a line that is not JSON
// or not JSON-RPC went unanswered. Here every line is answered or delivered (jsonrpc-line.ts), a line
// over MCP_LINE_MAX_BYTES is skipped as it streams past (never held) and answered with an error
// naming its request, and only the end of stdin (or a read error, or stdout gone) ends the session.
// A request whose params the server would refuse is answered here, in one line (-32602), rather
// than with the dump of the SDK's schema error.

import { createWriteStream } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { plainLine } from '../../service/core/text/clean.js';
import {
  type ErrorAnswer,
  errorAnswer,
  MCP_LINE_MAX_BYTES,
  oversizeAnswer,
  readLine,
} from './jsonrpc-line.js';
import { OversizeIdScanner } from './oversize-id.js';

const NEWLINE = 0x0a;
/** Answers not yet taken by the client past which stdin is paused, until they drain. */
const OUTPUT_BACKLOG_BYTES = 16 * 1024 * 1024;

export interface LineTransportOptions {
  /** Why the server would refuse a request's params (answered -32602), or null to deliver it. */
  refuseParams?: (request: JSONRPCRequest) => string | null;
  /** Where a problem no answer can carry is told (the harness's MCP log); one line each. */
  warn: (line: string) => void;
  input?: Readable;
  output?: Writable;
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Settles at the end of input: stdin's end, a read error, or a client no longer reading stdout. */
  readonly ended: Promise<void>;

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly refuseParams: (request: JSONRPCRequest) => string | null;
  private readonly warn: (line: string) => void;
  private end!: () => void;
  private done = false;
  private chunks: Uint8Array[] = [];
  private size = 0;
  /** Set while a line over the bound streams past: its id so far, and its length. */
  private oversize: { scanner: OversizeIdScanner; bytes: number } | null = null;
  private outputGone = false;

  constructor(options: LineTransportOptions) {
    this.input = options.input ?? process.stdin;
    // Not process.stdout: on a pipe its writes block the whole process once the client stops
    // reading, so a client that writes a burst before it reads would deadlock with us as soon as
    // 64 KiB of answers wait; here up to OUTPUT_BACKLOG_BYTES may wait while we keep reading.
    this.output = options.output ?? createWriteStream('', { fd: 1, autoClose: false });
    this.refuseParams = options.refuseParams ?? (() => null);
    this.warn = options.warn;
    this.ended = new Promise((resolve) => {
      this.end = resolve;
    });
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(message);
  }

  async close(): Promise<void> {
    this.stopReading();
    this.end();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start < bytes.length && !this.done) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      this.take(bytes.subarray(start, end), start === 0 && newline === -1);
      if (newline === -1) break;
      this.finishLine();
      start = newline + 1;
    }
  };

  /** The input ended: a last line without its newline is still a line (answered or delivered). */
  private readonly onEnd = (): void => {
    if (this.size > 0 || this.oversize !== null) this.finishLine();
    this.stopReading();
    this.end();
  };

  private readonly onInputError = (error: Error): void => {
    if (this.done) return;
    this.warn(`dogsled: mcp: stdin: ${plainLine(error.message)}; the session ends`);
    this.stopReading();
    this.end();
  };

  private readonly onOutputError = (error: Error): void => {
    if (this.outputGone) return;
    this.outputGone = true;
    this.warn(`dogsled: mcp: stdout: ${plainLine(error.message)}; the session ends`);
    this.stopReading();
    this.end();
  };

  /** `whole`: the piece is a whole chunk, held as it is; a part is copied (it would hold the chunk). */
  private take(piece: Uint8Array, whole: boolean): void {
    if (this.oversize !== null) {
      this.oversize.scanner.feed(piece);
      this.oversize.bytes += piece.length;
      return;
    }
    if (this.size + piece.length <= MCP_LINE_MAX_BYTES) {
      if (piece.length > 0) this.chunks.push(whole ? piece : Buffer.from(piece));
      this.size += piece.length;
      return;
    }
    // Past the bound: what is held is scanned for the id once and let go; the rest streams past.
    const scanner = new OversizeIdScanner();
    for (const held of this.chunks) scanner.feed(held);
    scanner.feed(piece);
    this.oversize = { scanner, bytes: this.size + piece.length };
    this.chunks = [];
    this.size = 0;
  }

  private finishLine(): void {
    if (this.oversize !== null) {
      const { scanner, bytes } = this.oversize;
      this.oversize = null;
      this.answer(oversizeAnswer(scanner.id, bytes));
      return;
    }
    // A CR before the newline is JSON whitespace: JSON.parse ignores it.
    const outcome = readLine(Buffer.concat(this.chunks, this.size));
    this.chunks = [];
    this.size = 0;
    if ('blank' in outcome) return;
    if ('answer' in outcome) {
      this.answer(outcome.answer);
      return;
    }
    this.deliver(outcome.message);
  }

  private deliver(message: JSONRPCMessage): void {
    const request = 'method' in message && 'id' in message ? (message as JSONRPCRequest) : null;
    if (request !== null) {
      const refused = this.refuseParams(request);
      if (refused !== null) {
        this.answer(errorAnswer(request.id, ErrorCode.InvalidParams, refused));
        return;
      }
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      // The SDK's dispatch should not throw; if it does, the request still gets an answer.
      const why = plainLine(error instanceof Error ? error.message : String(error));
      this.warn(`dogsled: mcp: internal error: ${why}`);
      if (request !== null)
        this.answer(errorAnswer(request.id, ErrorCode.InternalError, `internal error: ${why}`));
    }
  }

  private answer(answer: ErrorAnswer): void {
    this.write(answer).catch(() => {
      // The output's error handler has ended the session; nothing else can be told.
    });
  }

  private write(message: JSONRPCMessage | ErrorAnswer): Promise<void> {
    if (this.outputGone) return Promise.reject(new Error('stdout is closed'));
    const text = `${JSON.stringify(message)}\n`;
    return new Promise((resolve, reject) => {
      this.output.write(text, (error) => (error ? reject(error) : resolve()));
      this.holdInputWhileBacklogged();
    });
  }

  /** A client that writes without reading answers cannot make us hold them all: we stop reading. */
  private holdInputWhileBacklogged(): void {
    if (this.output.writableLength <= OUTPUT_BACKLOG_BYTES || this.done || this.input.isPaused()) return;
    this.input.pause();
    this.output.once('drain', () => {
      if (!this.done) this.input.resume();
    });
  }

  private stopReading(): void {
    if (this.done) return;
    this.done = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    // The error listener stays: an error after the end must not become an uncaught one.
    this.input.pause();
    this.chunks = [];
    this.oversize = null;
  }
}
