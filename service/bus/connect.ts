// The one connection to the fleet bus (`[fleet] bus`, NATS): its options from config.toml, the
// credentials file checked (0600) and read here only, into the client's memory (never argv, a log
// or a state file), and every failure said as one line that names the bus and the category, never
// the server's own text. Only service/bus loads the NATS client: a command that never meets the bus
// never parses it.

import { readFile, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { BUS_ID_PATTERN, inboxPrefix } from '../core/fleet/bus-rules.js';
import type { ConfigFleet } from '../state/config/config.js';

export type { NatsConnection };

export interface BusSettings {
  fleet: ConfigFleet;
  /** config.toml's path, for the one-line errors that name a key of it; a command may not know it. */
  configPath?: string;
}

/** This host's id on the bus: `fleet.id`, else the short host name when it makes one. */
export function busHostId(fleet: ConfigFleet, host = hostname()): string {
  if (fleet.id !== null) return fleet.id;
  const short = host.split('.')[0] ?? '';
  if (!BUS_ID_PATTERN.test(short) || short === 'local') {
    throw new DogsledError(`fleet: the host name "${short.slice(0, 64)}" is not a host id: set fleet.id`);
  }
  return short;
}

/** The servers as one short name for messages: the first URL, and how many more. */
export function busName(fleet: ConfigFleet): string {
  const [first, ...rest] = fleet.bus;
  return rest.length > 0 ? `${first} (+${rest.length})` : `${first}`;
}

/** The credentials, refused unless the file is its owner's alone. */
async function readCreds(settings: BusSettings, path: string): Promise<Uint8Array> {
  const where = `${settings.configPath === undefined ? '' : `config ${settings.configPath}: `}fleet.creds: ${path}`;
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new DogsledError(
      `${where}: ${error.code === 'ENOENT' ? 'no such file' : `cannot read (${error.code})`}`,
    );
  });
  if (!info.isFile()) throw new DogsledError(`${where}: not a file`);
  if ((info.mode & 0o077) !== 0) {
    const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
    throw new DogsledError(`${where}: must be readable by its owner alone (chmod 600), found mode ${mode}`);
  }
  return readFile(path).catch((error: NodeJS.ErrnoException) => {
    throw new DogsledError(`${where}: cannot read (${error.code})`);
  });
}

/**
 * Connects once as host `id`; the connection then reconnects by itself for as long as it is open
 * (the caller watches its status). Throws a DogsledError naming the bus when the first connect
 * fails. `reconnect: false` (a command's one call) gives up at the first loss instead.
 */
export async function openBus(
  settings: BusSettings,
  id: string,
  name: string,
  options: { reconnect?: boolean } = {},
): Promise<NatsConnection> {
  const { fleet } = settings;
  const creds = fleet.creds === null ? undefined : await readCreds(settings, fleet.creds);
  try {
    return await connect({
      servers: fleet.bus,
      name,
      // Replies (request/reply, JetStream's API, the KV watch) come back under this host's own
      // prefix: a server can let each host's user read its own replies and no one else's.
      inboxPrefix: inboxPrefix(id),
      ...(creds ? { authenticator: credsAuthenticator(creds) } : {}),
      ...(fleet.tls_ca !== null ? { tls: { caFile: fleet.tls_ca } } : {}),
      maxReconnectAttempts: options.reconnect === false ? 0 : -1,
      reconnectTimeWait: 1_000,
      timeout: 5_000,
      // The client's own ping finds a dead server within this.
      pingInterval: 10_000,
    });
  } catch (error) {
    throw new DogsledError(`bus ${busName(fleet)}: ${busFailure(error)}`);
  }
}

/** A failure in a few words: what the server or socket said, never its raw text. */
export function busFailure(error: unknown): string {
  const text = messageOf(error);
  const code = (error as { code?: unknown })?.code;
  if (/authori[sz]ation|authentication|user authentication|permissions violation/i.test(text))
    return 'authorization failed';
  if (code === 'ECONNREFUSED' || /ECONNREFUSED|connection refused/i.test(text)) return 'connection refused';
  if (/timeout|timed out/i.test(text)) return 'timeout';
  if (/certificate|tls|ssl/i.test(text)) return 'tls failed';
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(text)) return 'no route';
  return 'cannot connect';
}
