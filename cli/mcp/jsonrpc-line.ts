// What one line of `dogsled mcp`'s stdin is: a JSON-RPC message for the server, an error answer to
// write back, or nothing (a blank line). JSON-RPC's own codes: a line that is not JSON (or not UTF-8)
// is -32700 with id null; JSON that is not one JSON-RPC 2.0 message (an array, a number, a wrong
// `jsonrpc`, an id that is neither a string nor a safe integer) is -32600, with the request's id
// when it has a usable one. Every error message is one escape-free line that quotes no more than a
// short, cleaned piece of the input.

import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { MESSAGE_MAX_BYTES } from '../../service/core/inbox/inbox.js';
import { cutAt, plainLine } from '../../service/core/text/clean.js';

/**
 * The longest line read, in bytes (25 MiB): the largest message a tool takes (`send`'s 4 MiB) with
 * every byte written as a 6-byte `\uXXXX` escape, which any JSON encoder may do (Python's
 * `json.dumps` does it to every control character and, as `\uXXXX` pairs, to all non-ASCII text),
 * and 1 MiB for the rest of the request. A longer line is answered with an error and skipped
 * without being held in memory.
 */
export const MCP_LINE_MAX_BYTES = 6 * MESSAGE_MAX_BYTES + 1024 * 1024;

export type RequestId = string | number;

export interface ErrorAnswer {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string };
}

export type LineOutcome = { message: JSONRPCMessage } | { answer: ErrorAnswer } | { blank: true };

export function errorAnswer(id: RequestId | null, code: number, message: string): ErrorAnswer {
  return { jsonrpc: '2.0', id, error: { code, message: `dogsled: mcp: ${message}` } };
}

const decoder = new TextDecoder('utf-8', { fatal: true });
const MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

/** One line as read, without its newline (a CR before it is JSON whitespace). */
export function readLine(bytes: Uint8Array): LineOutcome {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { answer: errorAnswer(null, ErrorCode.ParseError, 'parse error: the line is not UTF-8') };
  }
  if (text.trim() === '') return { blank: true };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = plainLine(error instanceof Error ? error.message : String(error)).slice(0, 160);
    return { answer: errorAnswer(null, ErrorCode.ParseError, `parse error: ${why}`) };
  }
  return readValue(value);
}

/** A parsed line: one JSON-RPC 2.0 message, or why it is not. */
export function readValue(value: unknown): LineOutcome {
  const invalid = (id: RequestId | null, why: string) => ({
    answer: errorAnswer(id, ErrorCode.InvalidRequest, `invalid request: ${why}`),
  });
  if (Array.isArray(value)) {
    return invalid(null, 'a batch (JSON array) is not taken; send one message per line');
  }
  if (value === null || typeof value !== 'object') {
    return invalid(null, `a message is a JSON object, not ${value === null ? 'null' : typeof value}`);
  }
  const record = value as Record<string, unknown>;
  const id = usableId(record.id);
  if (record.jsonrpc !== '2.0') return invalid(id, '"jsonrpc" must be "2.0"');
  if ('id' in record && id === null) {
    return invalid(null, '"id" must be a string or an integer of at most 2^53 - 1');
  }
  if ('method' in record && typeof record.method !== 'string')
    return invalid(id, '"method" must be a string');
  if (
    'params' in record &&
    (record.params === null || typeof record.params !== 'object' || Array.isArray(record.params))
  ) {
    return invalid(id, '"params" must be an object');
  }
  const unknown = Object.keys(record).filter((key) => !MEMBERS.has(key));
  if (unknown.length > 0) {
    const names = unknown.slice(0, 3).map((key) => JSON.stringify(cutAt(plainLine(key), 40)));
    return invalid(id, `unknown member ${names.join(', ')}`);
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    return invalid(id, 'not a request (method, id), notification (method) or response (id, result or error)');
  }
  return { message: parsed.data as JSONRPCMessage };
}

/** A request id as JSON-RPC may echo it, or null. */
export function usableId(id: unknown): RequestId | null {
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  return null;
}

/** The answer to a line over MCP_LINE_MAX_BYTES, with the id its top-level object carried, if any. */
export function oversizeAnswer(id: RequestId | null, bytes: number): ErrorAnswer {
  return errorAnswer(
    id,
    ErrorCode.InvalidRequest,
    `the message is ${bytes} bytes, over the ${MCP_LINE_MAX_BYTES} bytes (25 MiB) a line may hold; nothing of it was read`,
  );
}
