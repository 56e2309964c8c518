// `wait`, `logs` and `stop` of a job that runs on a peer: the job is found through the owner's item
// (items.json names its host) or the peer cache's job lists (`ps --all` reads the same), and each
// step is a host verb there, every remote read bounded by the routine 30 s. A follow and a wait poll
// the peer, so a peer that goes away mid-wait is a one-line error, never a hang.

import { access, readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DogsledError } from '../core/common/errors.js';
import type { JobRecord } from '../core/jobs/job-types.js';
import { type PeerHost, readFleet } from '../hosts/fleet.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { readPeerEntry } from '../hosts/peer-cache.js';
import { peerCall } from '../hosts/peer-verb.js';
import type { HostIO, StateIO } from '../state/io.js';
import { jobRecordPath } from '../state/records/job-records.js';
import { readItems } from '../state/records/queue-items.js';
import { JobRecordSchema } from '../state/schemas/host-schemas.js';
import type { Transport } from '../transport/types.js';
import type { LogWrite } from './job-logs.js';
import type { StopOutcome } from './job-stop.js';

/** How often a remote wait or follow asks again. */
export const REMOTE_POLL_MS = 1_000;

/** A job id with no record here may be a peer's (ticket ids stay local). */
export async function maybeRemote(io: StateIO, ref: string): Promise<boolean> {
  if (!/^j_[a-z0-9]+$/.test(ref)) return false;
  return access(jobRecordPath(io.paths, ref)).then(
    () => false,
    () => true,
  );
}

/** The peer job `id` runs on, or undefined when no item or cached peer snapshot names it. */
export async function findRemoteJob(io: HostIO, id: string): Promise<PeerHost | undefined> {
  const fleet = await readFleet(io);
  const byId = (hostId: string) => fleet.peers.find((peer) => peer.id === hostId);
  const item = (await readItems(io)).items.find((entry) => entry.job === id && entry.host !== LOCAL_HOST.id);
  if (item !== undefined) return byId(item.host);
  const cached = await readdir(io.paths.peers).catch(() => [] as string[]);
  for (const name of cached) {
    if (!name.endsWith('.json')) continue;
    const entry = await readPeerEntry(io, name.slice(0, -5)).catch(() => undefined);
    if (entry?.reply?.jobs?.some((job) => job.id === id)) return byId(entry.id);
  }
  return undefined;
}

export interface RemoteJobIO extends HostIO {
  transport?: Transport;
}

function call(io: RemoteJobIO, peer: PeerHost, argv: string[], signal?: AbortSignal): Promise<unknown> {
  return peerCall(io, peer, argv, {
    ...(io.transport ? { transport: io.transport } : {}),
    ...(signal ? { signal } : {}),
  });
}

function recordOf(peer: PeerHost, value: unknown): JobRecord {
  const parsed = JobRecordSchema.safeParse(value);
  if (!parsed.success) throw new DogsledError(`${peer.label}: a job record that is not dogsled's`);
  return { ...parsed.data, host: peer.id };
}

export async function remoteJob(io: RemoteJobIO, peer: PeerHost, id: string, signal?: AbortSignal) {
  return recordOf(peer, await call(io, peer, ['job', id], signal));
}

/** The final record once the job ended; rejects with the signal's reason when it aborts first. */
export async function waitRemoteJob(
  io: RemoteJobIO,
  peer: PeerHost,
  id: string,
  signal: AbortSignal,
): Promise<JobRecord> {
  for (;;) {
    const record = await remoteJob(io, peer, id, signal);
    if (record.ended_ms !== null) return record;
    await sleep(REMOTE_POLL_MS, undefined, { signal });
  }
}

/** The log from its start, once, or with `follow` until the job ended and every byte was written. */
export async function remoteLogs(
  io: RemoteJobIO,
  peer: PeerHost,
  id: string,
  options: { follow: boolean; write: LogWrite; signal?: AbortSignal },
): Promise<JobRecord> {
  let offset = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const value = (await call(io, peer, ['logs', id, String(offset)], options.signal)) as {
      data?: unknown;
      next?: unknown;
      more?: unknown;
      record?: unknown;
    };
    if (typeof value?.data !== 'string' || typeof value.next !== 'number') {
      throw new DogsledError(`${peer.label}: host logs answered something that is not dogsled's`);
    }
    const record = recordOf(peer, value.record);
    if (value.data !== '') await options.write(Buffer.from(value.data, 'base64'));
    offset = value.next;
    if (value.more === true) continue;
    if (!options.follow || record.ended_ms !== null) return record;
    await sleep(REMOTE_POLL_MS, undefined, options.signal ? { signal: options.signal } : {});
  }
}

export async function stopRemoteJob(io: RemoteJobIO, peer: PeerHost, id: string): Promise<StopOutcome> {
  const value = (await call(io, peer, ['stop', id])) as { kind?: unknown; record?: unknown; sent?: unknown };
  const record = recordOf(peer, value?.record);
  const sent = typeof value?.sent === 'string' ? (value.sent as NodeJS.Signals) : null;
  switch (value?.kind) {
    case 'ended':
    case 'requested':
      return { kind: value.kind, record };
    case 'stopped':
    case 'signalled':
      return { kind: value.kind, record, sent };
    default:
      throw new DogsledError(`${peer.label}: host stop answered something that is not dogsled's`);
  }
}

export interface RemoteTarget {
  io: RemoteJobIO;
  peer: PeerHost;
}

/**
 * The peer of job `ref` when it is not this host's; `load` gives the host IO (the config) only
 * then, so commands on local jobs never load the config.
 */
export async function remoteJobOf(
  io: StateIO,
  ref: string,
  load: () => Promise<HostIO>,
): Promise<RemoteTarget | undefined> {
  if (!(await maybeRemote(io, ref))) return undefined;
  const host = await load();
  const peer = await findRemoteJob(host, ref);
  return peer === undefined ? undefined : { io: host, peer };
}

/** `wait` of a remote job: as waitForRef, polling the peer. */
export async function waitRemoteRef(
  target: RemoteTarget,
  ref: string,
  signals: { deadline?: AbortSignal; stopped: AbortSignal },
): Promise<{ kind: 'ended'; record: JobRecord } | { kind: 'deadline' } | { kind: 'interrupted' }> {
  const { deadline, stopped } = signals;
  const signal = deadline ? AbortSignal.any([deadline, stopped]) : stopped;
  try {
    return { kind: 'ended', record: await waitRemoteJob(target.io, target.peer, ref, signal) };
  } catch (error) {
    if (stopped.aborted) return { kind: 'interrupted' };
    if (deadline?.aborted) return { kind: 'deadline' };
    throw error;
  }
}

/** `logs` of a remote job: as logsOfRef, reading the peer's log from offset 0. */
export async function logsRemoteRef(
  target: RemoteTarget,
  ref: string,
  options: { follow: boolean; write: LogWrite; stopped?: AbortSignal },
): Promise<{ kind: 'done' } | { kind: 'interrupted' }> {
  try {
    await remoteLogs(target.io, target.peer, ref, {
      follow: options.follow,
      write: options.write,
      ...(options.stopped ? { signal: options.stopped } : {}),
    });
    return { kind: 'done' };
  } catch (error) {
    if (options.stopped?.aborted) return { kind: 'interrupted' };
    throw error;
  }
}
