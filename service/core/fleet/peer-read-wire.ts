// The lines spoken on peer-read.sock, where a command asks this host's service to read a peer's
// snapshot through the service's pooled connection instead of starting its own ssh. The service
// greets every connection at once (a frozen or starved service does not, and the command reads the
// peer itself); the command sends one request line; the service beats while it reads (a service
// frozen mid-read falls silent, and the command reads the peer itself with what is left of its
// deadline, rather than blame the peer for the service's silence) and answers one line. Both lines are
// bounded, and a request names a peer by what the caller's config calls it (its target and the
// remote command): the service reads only a peer its own config lists with the same two, so the
// socket cannot make it ssh anywhere else, nor run anything but `host snapshot`.

import { UNREACHABLE_CATEGORIES, type UnreachableCategory } from './unreachable.js';

/** The service's greeting, written as soon as it accepts a connection. */
export const PEER_READ_HELLO = 'dogsled peer-read 1\n';

/** Written while a read is under way, before the answer line (JSON allows it as leading space). */
export const PEER_READ_BEAT = ' ';

/** How often the service beats while it reads. */
export const PEER_READ_BEAT_MS = 250;

/** A request line is a host name, a remote command and two numbers: far under this. */
export const PEER_READ_REQUEST_MAX_BYTES = 16 * 1024;

/** What an answer may add around the snapshot it carries (its keys, the reply's fields). */
export const PEER_READ_ENVELOPE_BYTES = 64 * 1024;

/** The one verb the socket reads. */
export const PEER_READ_VERB = 'snapshot';

const MAX_HOST_CHARS = 1_024;
const MAX_REMOTE_WORDS = 64;

export interface PeerReadRequest {
  v: 1;
  verb: typeof PEER_READ_VERB;
  /** The peer's target as the caller's config names it. */
  host: string;
  /** The caller's remote_command. */
  remote: string[];
  /** What the caller gives the read, connection included. */
  timeout_ms: number;
  /** The largest snapshot the caller takes, in bytes of JSON. */
  max_bytes: number;
}

/** The verb's reply, as the service's transport gave it (types.ts VerbReply). */
export type PeerReadReply =
  | { ok: true; value: unknown; exitCode: number; durationMs: number }
  | { ok: false; error: string; exitCode: number; durationMs: number };

export type PeerReadAnswer =
  | { reply: PeerReadReply }
  /** The peer could not be read: its category and the raw text for a debug log. */
  | { unreachable: UnreachableCategory; detail: string }
  /** The service will not read it (not a peer it knows, its pool backing off, stopping): read it yourself. */
  | { declined: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** The request, or why it is refused (one line, for the declined answer). */
export function parsePeerReadRequest(line: string): PeerReadRequest | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not a request';
  }
  if (!isRecord(value) || value.v !== 1) return 'not a request of this version';
  if (value.verb !== PEER_READ_VERB) return 'only snapshot is read here';
  const { host, remote, timeout_ms, max_bytes } = value;
  if (typeof host !== 'string' || host === '' || host.length > MAX_HOST_CHARS) return 'no host';
  if (
    !Array.isArray(remote) ||
    remote.length === 0 ||
    remote.length > MAX_REMOTE_WORDS ||
    !remote.every((word): word is string => typeof word === 'string')
  )
    return 'no remote command';
  if (!isCount(timeout_ms) || timeout_ms === 0) return 'no timeout';
  if (!isCount(max_bytes) || max_bytes === 0) return 'no size bound';
  return { v: 1, verb: PEER_READ_VERB, host, remote, timeout_ms, max_bytes };
}

/** The answer, or undefined when the line is not one (the caller then reads the peer itself). */
export function parsePeerReadAnswer(line: string): PeerReadAnswer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  if (typeof value.declined === 'string') return { declined: value.declined };
  if (typeof value.unreachable === 'string') {
    const category = UNREACHABLE_CATEGORIES.find((known) => known === value.unreachable);
    if (category === undefined) return undefined;
    return { unreachable: category, detail: typeof value.detail === 'string' ? value.detail : '' };
  }
  const reply = value.reply;
  if (!isRecord(reply) || !isCount(reply.durationMs) || typeof reply.exitCode !== 'number') return undefined;
  const { exitCode, durationMs } = reply;
  if (!Number.isSafeInteger(exitCode)) return undefined;
  if (reply.ok === true && 'value' in reply)
    return { reply: { ok: true, value: reply.value, exitCode, durationMs } };
  if (reply.ok === false && typeof reply.error === 'string')
    return { reply: { ok: false, error: reply.error, exitCode, durationMs } };
  return undefined;
}

/** The two lines as they travel. */
export function peerReadLine(message: PeerReadRequest | PeerReadAnswer): string {
  return `${JSON.stringify(message)}\n`;
}
