// One pooled connection to one peer: resolve the host with `ssh -G`, read its keys on file, open our
// own TCP socket (noDelay: without it each round trip waits for a delayed ACK), shake hands with ssh2
// verifying the host key ourselves, authenticate with the user's identities, then open the
// `dogsled host rpc` channel. Every step shares one deadline and fails with one category.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect as netConnect, type Socket } from 'node:net';
import type { AuthenticationType, Client, ClientChannel, ConnectConfig, ParsedKey } from 'ssh2';
import { socketErrorCategory, type UnreachableCategory } from '../core/fleet/unreachable.js';
import {
  type HostKeyVerdict,
  hostKeyAlgorithms,
  knownHostsName,
  readKnownKeys,
  verifyHostKey,
} from './known-hosts.js';
import { remoteLine } from './openssh.js';
import { RpcChannel } from './rpc-channel.js';
import type { ResolvedHost } from './ssh-config.js';
import { abortReason, type PeerTarget, UnreachableError } from './types.js';

export interface Ssh2Connection {
  client: Client;
  channel: RpcChannel;
  /** Ends the connection now: SSH's goodbye if it can still be sent, and the socket closed. */
  destroy: () => void;
}

export interface ConnectSettings {
  target: PeerTarget;
  resolved: ResolvedHost;
  deadlineMs: number;
  env: NodeJS.ProcessEnv;
  /** ssh2 keepalives on an idle connection: a peer that stops answering is dropped. */
  keepaliveMs: number;
  /** The pool's stop: a connection still being made ends at once, socket and all. */
  signal?: AbortSignal;
}

/** Identity files larger than this are not keys. */
const MAX_KEY_BYTES = 64 * 1024;
/** ssh's own default: three unanswered keepalives end the connection. */
const KEEPALIVE_COUNT_MAX = 3;

export async function connectPeer(settings: ConnectSettings): Promise<Ssh2Connection> {
  const { target, resolved } = settings;
  const started = performance.now();
  const remaining = (): number => Math.max(1, settings.deadlineMs - (performance.now() - started));
  const fail = (category: UnreachableCategory, detail: string): UnreachableError =>
    new UnreachableError(target.host, category, detail);

  const files = [...resolved.userKnownHostsFiles, ...resolved.globalKnownHostsFiles];
  const name = knownHostsName(resolved.hostname, resolved.port, resolved.hostKeyAlias);
  const known = await readKnownKeys(files, name);
  const algorithms = hostKeyAlgorithms(known);
  if (algorithms.length === 0) {
    throw fail(
      'host key',
      `no host key for ${name} in ${files.join(', ')}: connect once with ssh to review it`,
    );
  }
  const methods = await authMethods(resolved, settings.env);
  if (methods.length === 0) {
    throw fail('auth', `no usable identity for ${resolved.user}@${name} (encrypted keys need an agent)`);
  }

  const { Client } = await loadSsh2();
  const { signal } = settings;
  signal?.throwIfAborted();
  const socket = await openSocket(resolved, remaining(), fail, signal);
  const client = new Client();
  let verdict: HostKeyVerdict | undefined;
  const config: ConnectConfig = {
    sock: socket,
    username: resolved.user,
    algorithms: { serverHostKey: algorithms as NonNullable<ConnectConfig['algorithms']>['serverHostKey'] },
    hostVerifier: (key: Buffer) => {
      verdict = verifyHostKey(known, key);
      return verdict === 'known';
    },
    authHandler: methods,
    readyTimeout: 0,
    keepaliveInterval: settings.keepaliveMs,
    keepaliveCountMax: KEEPALIVE_COUNT_MAX,
  };
  // Stopped mid-handshake or before the hello: the socket goes, and so does every wait on it.
  const onAbort = (): void => {
    client.on('error', () => {});
    client.end();
    socket.destroy();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await withDeadline(
      new Promise<void>((resolve, reject) => {
        client.once('ready', resolve);
        client.once('error', (error: Error & { level?: string }) => {
          if (verdict !== undefined && verdict !== 'known') {
            reject(fail('host key', `${name} offered a key that is ${verdict} in ${files.join(', ')}`));
          } else if (/host key/i.test(error.message)) {
            // The server offers no key of a type on file ("no matching host key format"): unknown.
            reject(fail('host key', `${name}: ${error.message}`));
          } else if (error.level === 'client-authentication') {
            reject(fail('auth', `${resolved.user}@${name}: ${error.message}`));
          } else {
            const code = (error as NodeJS.ErrnoException).code;
            reject(fail(socketErrorCategory(code) ?? 'connection lost', error.message));
          }
        });
        client.once('close', () => reject(fail('connection lost', 'closed during the handshake')));
        client.connect(config);
      }),
      remaining(),
      () => fail('timeout', `no ssh handshake with ${name} in time`),
      signal,
    );
    // Errors after the handshake end the channel through its close; none may go unheard.
    client.on('error', () => {});
    const stream = await withDeadline(
      new Promise<ClientChannel>((resolve, reject) => {
        client.exec(remoteLine(target, ['rpc']), (error, channel) => {
          if (error) reject(fail('remote command failed', `cannot start the rpc channel: ${error.message}`));
          else resolve(channel);
        });
      }),
      remaining(),
      () => fail('timeout', 'no rpc channel in time'),
      signal,
    );
    // ssh2's own end() only half-closes the socket, and its destroy() does nothing once end() ran:
    // a peer that never answers the FIN (a frozen sshd) would keep the socket, and this process,
    // alive. The socket is ours, so it is destroyed here, whatever ssh2 thinks of it.
    const destroy = (): void => {
      client.end();
      socket.destroy();
    };
    // A stop before the hello destroys the socket, which ends this wait with the channel.
    const channel = await RpcChannel.open(
      target.host,
      { readable: stream, writable: stream, stderr: stream.stderr, destroy },
      remaining(),
    );
    client.once('close', () => channel.close());
    return { client, channel, destroy };
  } catch (error) {
    client.end();
    socket.destroy();
    throw signal?.aborted ? abortReason(signal) : error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

type Ssh2 = typeof import('ssh2');

/**
 * ssh2 is CommonJS and loaded only here, on the first connection. Bundled (esbuild, code splitting)
 * its chunk exports only `default`; run from source, Node also names its exports. Take either.
 */
async function loadSsh2(): Promise<Ssh2> {
  const module = (await import('ssh2')) as Ssh2 & { default?: Ssh2 };
  return module.default ?? module;
}

/** Agent first unless IdentitiesOnly, then each identity file that parses without a passphrase. */
async function authMethods(
  resolved: ResolvedHost,
  env: NodeJS.ProcessEnv,
): Promise<ConnectConfig['authHandler'] & object[]> {
  const { utils } = await loadSsh2();
  const methods: Array<{ type: AuthenticationType; username: string; key?: ParsedKey; agent?: string }> = [];
  const agent = env.SSH_AUTH_SOCK;
  if (agent && !resolved.identitiesOnly) methods.push({ type: 'agent', username: resolved.user, agent });
  for (const file of resolved.identityFiles) {
    const text = await readKeyFile(file);
    if (text === undefined) continue;
    const parsed = utils.parseKey(text);
    if (parsed instanceof Error) continue;
    const key = Array.isArray(parsed) ? parsed[0] : parsed;
    if (key) methods.push({ type: 'publickey', username: resolved.user, key });
  }
  return methods as ConnectConfig['authHandler'] & object[];
}

async function readKeyFile(path: string): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_KEY_BYTES) return undefined;
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

function openSocket(
  resolved: ResolvedHost,
  timeoutMs: number,
  fail: (category: UnreachableCategory, detail: string) => UnreachableError,
  signal: AbortSignal | undefined,
): Promise<Socket> {
  const socket = netConnect({ host: resolved.hostname, port: resolved.port, noDelay: true });
  return withDeadline(
    new Promise<Socket>((resolve, reject) => {
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        reject(fail(socketErrorCategory(error.code) ?? 'connection lost', error.message));
      });
    }),
    timeoutMs,
    () => fail('timeout', `no TCP connection to ${resolved.hostname}:${resolved.port} in time`),
    signal,
  ).catch((error: unknown) => {
    socket.destroy();
    throw error;
  });
}

/** `promise`, or `onTimeout()` thrown after `ms`, or the signal's reason as soon as it aborts. */
function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  signal: AbortSignal | undefined,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
    if (!signal) return;
    onAbort = () => reject(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, deadline]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}
