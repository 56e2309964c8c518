// One host verb on one peer, for commands that act there (reserve, launch, a job's record, logs,
// stop, doctor, prune, read, close, send): the one place that chooses how it travels. A host met on
// the fleet bus is asked there by request/reply (over the service's connection, or one the call
// opens and closes); any other over SSH, through OpenSSH unless the caller brings a transport, in the
// call's options or its IO (the service's pool, a follow's own pool). The verb's refusal and an
// unreachable peer are one line naming the peer.

import { DogsledError } from '../core/common/errors.js';
import { ROUTINE_CAP_MS } from '../core/placement/budget.js';
import type { HostIO } from '../state/io.js';
import { OpenSshTransport } from '../transport/openssh.js';
import { type PeerTarget, type Transport, UnreachableError } from '../transport/types.js';
import type { PeerHost } from './fleet.js';
import { peerTarget } from './peer-cache.js';

export interface PeerCallOptions {
  transport?: Transport;
  input?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  maxReplyBytes?: number;
}

export function defaultTransport(io: Pick<HostIO, 'env'>): Transport {
  return new OpenSshTransport({ env: io.env });
}

export interface PeerCallIO extends Pick<HostIO, 'env' | 'config'> {
  /** The caller's SSH transport (the service's pool); default one OpenSSH process per call. */
  transport?: Transport | undefined;
  /** The service's link to the fleet bus; without it a call to a bus peer opens its own. */
  bus?: Transport | undefined;
}

/**
 * How a call reaches `target`: over the fleet bus for a host met there, else over SSH (`ssh`, the
 * caller's own, first). `owned` is a transport made for this call alone, which the caller closes.
 */
export async function peerTransport(
  io: PeerCallIO,
  target: PeerTarget,
  ssh?: Transport,
): Promise<{ transport: Transport; owned: boolean }> {
  if (target.bus === undefined)
    return { transport: ssh ?? io.transport ?? defaultTransport(io), owned: false };
  if (io.bus) return { transport: io.bus, owned: false };
  const { commandBusTransport } = await import('../bus/rpc-client.js');
  return { transport: commandBusTransport({ fleet: io.config.fleet }), owned: true };
}

export async function peerCall(
  io: PeerCallIO,
  peer: PeerHost,
  argv: readonly string[],
  options: PeerCallOptions = {},
): Promise<unknown> {
  const target = peerTarget(peer, io.config.remote_command);
  const { transport, owned } = await peerTransport(io, target, options.transport);
  try {
    return await callOver(transport, target, peer, argv, options);
  } finally {
    if (owned) await transport.close();
  }
}

async function callOver(
  transport: Transport,
  target: PeerTarget,
  peer: PeerHost,
  argv: readonly string[],
  options: PeerCallOptions,
): Promise<unknown> {
  let reply: Awaited<ReturnType<Transport['exec']>>;
  try {
    reply = await transport.exec(target, argv, {
      timeoutMs: options.timeoutMs ?? ROUTINE_CAP_MS,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.maxReplyBytes === undefined ? {} : { maxReplyBytes: options.maxReplyBytes }),
    });
  } catch (error) {
    if (error instanceof UnreachableError) {
      throw new DogsledError(`${peer.label}: unreachable: ${error.category}`, { cause: error });
    }
    throw error;
  }
  if (!reply.ok) {
    throw new DogsledError(`${peer.label}: ${peerReason(argv[0] ?? '', reply.error)}`, {
      exitCode: reply.exitCode === 1 ? 1 : 2,
    });
  }
  return reply.value;
}

/**
 * The peer's own reason, once: a one-shot refusal arrives as `host: send: <reason>` (the peer's
 * `host` command and its verb's name) and an RPC one as `send: <reason>`; the caller names its own
 * command and the peer, so those prefixes would only repeat them.
 */
export function peerReason(verb: string, error: string): string {
  let reason = error;
  if (reason.startsWith('host: ')) reason = reason.slice('host: '.length);
  for (const prefix of [`host ${verb}: `, `${verb}: `]) {
    if (verb !== '' && reason.startsWith(prefix)) return reason.slice(prefix.length);
  }
  return reason;
}
