// Herdr's reply envelope, shared by the socket and the CLI (which prints the same envelope):
// `{id, result: {type, ...}}` or `{id, error: {code, message}}`. Errors become TerminalError by code;
// `invalid_request` answers carry an empty id, so only a successful reply must echo ours.

import { fromHerdrCode, TerminalError } from '../terminal-errors.js';

/** A successful result: `type` names its shape (snake_case), the other fields depend on it. */
export type Reply = { type: string } & Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function protocol(method: string, why: string): TerminalError {
  return new TerminalError('protocol', `herdr ${method}: ${why}`, { method });
}

/** The result of an envelope, or the TerminalError it carries; `id` undefined skips the echo check. */
export function replyOf(value: unknown, id: string | undefined, method: string): Reply {
  if (!isObject(value)) throw protocol(method, 'reply is not a JSON object');
  if (value.error !== undefined) throw errorOf(value.error, method);
  const result = value.result;
  if (!isObject(result) || typeof result.type !== 'string') {
    throw protocol(method, 'reply has neither a result with a type nor an error');
  }
  if (id !== undefined && value.id !== id) {
    throw protocol(method, `reply id ${JSON.stringify(value.id)} does not match request ${id}`);
  }
  return result as Reply;
}

export function errorOf(error: unknown, method: string): TerminalError {
  if (!isObject(error) || typeof error.code !== 'string') return protocol(method, 'error without a code');
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : error.code;
  return fromHerdrCode(error.code, `herdr ${method}: ${message}`, method);
}

/** Checks the result's type so a wrong reply shape fails as `protocol`, not as a later crash. */
export function expectType(reply: Reply, type: string, method: string): Reply {
  if (reply.type !== type) throw protocol(method, `expected a ${type} result, got ${reply.type}`);
  return reply;
}
