// The fleet bus's rules (NATS JetStream, `[fleet] bus`): the names it uses, when a host seen there
// is stale, and what of a host's key is taken. nats-server 2.9 has no per-key TTL, so a host that
// stops publishing keeps its last key: staleness is judged here, by when its key last changed on
// this host's clock. Pure: `now` comes from the caller.

/** A host id as config.toml's rules take one (it names a cache file, peers/ID.json). */
const HOST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The KV bucket every service publishes its `host snapshot` document to, one key per host id. */
export const HOSTS_BUCKET = 'dogsled_hosts';

/** A host whose key has not changed for this long is `unreachable: stale`. */
export const BUS_STALE_MS = 30_000;

/**
 * The largest document taken from the bucket: the same bound as a peer's snapshot over SSH, checked
 * on the raw bytes before anything parses them.
 */
export { PEER_SNAPSHOT_MAX_BYTES as BUS_DOCUMENT_MAX_BYTES } from './peer-reads.js';

/**
 * Why a host met only on the bus takes no work yet: it is shown and counted, but its verbs (launch,
 * logs, stop) are reached over SSH alone in this version.
 */
export const BUS_NOT_PLACED = 'bus peer: work is placed on SSH peers only';

/** Where a host answers the `host` verbs by request/reply. */
export function rpcSubject(id: string): string {
  return `dogsled.rpc.${id}`;
}

/**
 * Why a key of the bucket is not a host this service takes, or undefined when it is one: its name
 * must be a host id (it names a cache file), and never this host's own.
 */
export function foreignHostKey(key: string, ownId: string): 'not a host id' | 'own' | undefined {
  if (!HOST_ID_PATTERN.test(key) || key === 'local') return 'not a host id';
  return key === ownId ? 'own' : undefined;
}

/**
 * A bus peer's reachability from its cache entry: `bus down` while this host's service cannot reach
 * the bus (it says so in the entry), `stale` once the key has not changed for `staleMs`, else null.
 */
export function busUnreachable(
  entry: { read_ms: number | null; unreachable: string | null },
  now: number,
  staleMs: number = BUS_STALE_MS,
): 'bus down' | 'stale' | null {
  if (entry.unreachable === 'bus down') return 'bus down';
  if (entry.read_ms === null || now - entry.read_ms > staleMs) return 'stale';
  return null;
}

/**
 * A key's last change on this host's clock: the server stamps each revision with its own clock, and
 * `offsetMs` (server minus local, measured on this host's own key) moves it onto ours. A change in
 * the future by that reckoning happened now.
 */
export function changedAtMs(serverMs: number, offsetMs: number, now: number): number {
  return Math.min(now, serverMs - offsetMs);
}
