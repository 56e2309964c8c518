// The hosts met on the fleet bus, as this host's service left them in the peer cache: every entry
// of peers/ marked `via: bus`. Commands read these files only; the service alone talks to the bus
// (daemon/peers/bus-worker.ts) and writes them, so `status` and the hooks keep their budgets.

import { mkdir, readdir, rm } from 'node:fs/promises';
import { BUS_DOCUMENT_MAX_BYTES } from '../core/fleet/bus-rules.js';
import type { PeerEntry, PeerReply } from '../core/fleet/fleet-types.js';
import { readState, writeState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { STATE_DIR_MODE } from '../state/paths.js';
import { PeerEntrySchema, PeerReplySchema } from '../state/schemas/peer-schemas.js';
import type { PeerHost } from './fleet.js';
import { peerEntryPath } from './peer-cache.js';

/** A bus peer's `target`: it is reached over the bus, never given to ssh. */
export const BUS_TARGET = 'bus';

/** Bus peers by id, in name order; a file that is not a bus entry is not one. */
export async function busPeers(io: Pick<StateIO, 'paths' | 'now' | 'warn' | 'signal'>): Promise<PeerHost[]> {
  const names = await readdir(io.paths.peers).catch(() => [] as string[]);
  const ids = names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length));
  const entries = await Promise.all(
    ids
      .sort()
      .map((id) => readState(`${io.paths.peers}/${id}.json`, PeerEntrySchema, io).catch(() => undefined)),
  );
  return entries.flatMap((entry, i) =>
    entry?.via === 'bus' && entry.id === ids[i]
      ? [{ id: entry.id, label: entry.id, target: entry.target, enabled: true, via: 'bus' as const }]
      : [],
  );
}

/** What a host's key held: its snapshot, or why it was not taken (said without its content). */
export type BusDocument = { ok: true; reply: PeerReply } | { ok: false; problem: string };

/** A key's bytes judged before anything shows them: size first, then JSON, then the snapshot's schema. */
export function readBusDocument(bytes: Uint8Array): BusDocument {
  if (bytes.byteLength > BUS_DOCUMENT_MAX_BYTES) {
    return {
      ok: false,
      problem: `a document of ${bytes.byteLength} bytes, over the ${BUS_DOCUMENT_MAX_BYTES}-byte limit`,
    };
  }
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, problem: 'a document that is not JSON' };
  }
  const reply = PeerReplySchema.safeParse(data);
  return reply.success
    ? { ok: true, reply: reply.data }
    : { ok: false, problem: 'a document that is not a dogsled snapshot' };
}

type EntryIO = Pick<StateIO, 'paths' | 'now' | 'warn' | 'signal'>;

/** The peer's entry as its key now stands: `changedMs` is when the key last changed, on this host's clock. */
export async function writeBusPeer(
  io: EntryIO,
  id: string,
  reply: PeerReply,
  changedMs: number,
): Promise<void> {
  await mkdir(io.paths.peers, { recursive: true, mode: STATE_DIR_MODE });
  const entry: PeerEntry = {
    version: 1,
    id,
    target: BUS_TARGET,
    attempt_ms: changedMs,
    read_ms: changedMs,
    unreachable: null,
    failures: 0,
    retry_at_ms: null,
    reply,
    via: 'bus',
  };
  await writeState(peerEntryPath(io, id), PeerEntrySchema, entry);
}

/** A host whose key was deleted from the bucket is no longer a peer. */
export async function forgetBusPeer(io: EntryIO, id: string): Promise<void> {
  const entry = await readState(peerEntryPath(io, id), PeerEntrySchema, io).catch(() => undefined);
  if (entry?.via === 'bus') await rm(peerEntryPath(io, id), { force: true });
}

/**
 * This host's service cannot reach the bus: every bus peer says `bus down` and keeps its last
 * snapshot (its age shows), until the watch writes it again.
 */
export async function markBusDown(io: EntryIO): Promise<void> {
  for (const peer of await busPeers(io)) {
    const entry = await readState(peerEntryPath(io, peer.id), PeerEntrySchema, io).catch(() => undefined);
    if (entry?.via !== 'bus' || entry.unreachable === 'bus down') continue;
    await writeState(peerEntryPath(io, peer.id), PeerEntrySchema, { ...entry, unreachable: 'bus down' });
  }
}
