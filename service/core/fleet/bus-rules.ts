// The fleet bus's rules (NATS JetStream, `[fleet] bus`): the names it uses, when a host seen there
// is stale, and what of a host's key is taken. nats-server 2.9 has no per-key TTL, so a host that
// stops publishing keeps its last key: staleness is judged here, by when its key last changed on
// this host's clock. Pure: `now` comes from the caller.

/**
 * A host id on the bus: a host id as config.toml's rules take one (it names a cache file,
 * peers/ID.json) without dots, since it is one token of a NATS subject (`dogsled.rpc.ID`): with
 * dots, `dogsled.outbox.a.*` would match the records of an owner called `a.b`.
 */
export const BUS_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
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
 * Why a host met on the bus takes no work: its document does not say it answers the host verbs on
 * the bus (a dogsled from before they travelled there), so nothing could launch, follow or stop
 * work on it.
 */
export const BUS_NO_VERBS = 'bus peer: answers no host verbs on the bus (an older dogsled)';

/** Where a host answers the `host` verbs by request/reply. */
export function rpcSubject(id: string): string {
  return `dogsled.rpc.${id}`;
}

/**
 * The prefix of the subjects a host's replies come back on: its own, so a server configuration can
 * let each host's user read its own replies only (`_INBOX_alpha.>`).
 */
export function inboxPrefix(id: string): string {
  return `_INBOX_${id}`;
}

/** The JetStream stream a child's records for an owner on another host travel in. */
export const OUTBOX_STREAM = 'dogsled_outbox';
/** Every subject of the stream: `dogsled.outbox.<owner>.<sender>`. */
export const OUTBOX_SUBJECTS = 'dogsled.outbox.*.*';

/**
 * Where host `from` posts a record for the owner on host `owner`: the sender is a token of the
 * subject (not a field of the body) so that a server can let each host post as itself alone.
 */
export function outboxSubject(owner: string, from: string): string {
  return `dogsled.outbox.${owner}.${from}`;
}

/** The owner's durable consumer, and the records it takes: those posted for it by any host. */
export function outboxConsumer(owner: string): { name: string; filter: string } {
  return { name: `owner_${owner}`, filter: `dogsled.outbox.${owner}.*` };
}

/** The host a record came from, by its subject; undefined for a subject not for `owner`. */
export function outboxSender(subject: string, owner: string): string | undefined {
  const prefix = `dogsled.outbox.${owner}.`;
  if (!subject.startsWith(prefix)) return undefined;
  const from = subject.slice(prefix.length);
  return BUS_ID_PATTERN.test(from) && from !== 'local' ? from : undefined;
}

/**
 * Records stay in the stream this long for an owner that never comes back: a week, as in
 * outbox.json. Within the duplicate window, the stream keeps one copy of a record posted twice
 * (the sender died between the post and its own ack): an hour, far past the outbox lease.
 */
export const OUTBOX_STREAM_MAX_AGE_MS = 7 * 24 * 3_600_000;
export const OUTBOX_DUPLICATE_WINDOW_MS = 3_600_000;

/**
 * The bus id of the host whose identity is `identity`, by what each bus peer's document says; none
 * when no peer or two claim it (a document may say anything: two claimants means one lies, and a
 * record goes to neither rather than to the wrong one).
 */
export function busIdOfIdentity(
  identity: string,
  peers: ReadonlyArray<{ id: string; identity: string | null }>,
): string | undefined {
  const claimants = peers.filter((peer) => peer.identity === identity);
  return claimants.length === 1 ? claimants[0]?.id : undefined;
}

/**
 * Why a key of the bucket is not a host this service takes, or undefined when it is one: its name
 * must be a host id (it names a cache file), and never this host's own.
 */
export function foreignHostKey(key: string, ownId: string): 'not a host id' | 'own' | undefined {
  if (!BUS_ID_PATTERN.test(key) || key === 'local') return 'not a host id';
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
