// The lean read behind `status --line` and `--brief`, which a prompt or a tab row runs every few
// seconds: this host alone, its service up, its files read once each and checked by hand (no zod).
// It answers only the common case and says so by returning a view; on anything else (no snapshot,
// the service down or undecided, a peer that could be configured or met on the bus, a file it doubts) it returns
// undefined and the caller takes the full reader (local-facts.ts, peers.ts), which quarantines a
// bad file and words every other case. Checking only the fields the answer uses is deliberate: a
// file wrong elsewhere is quarantined by the next full read (status, place, the service).

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { PEER_READ_EVERY_MS } from '../core/fleet/peer-reads.js';
import type { HostSnapshot, Reservation } from '../core/placement/host-types.js';
import { identityAlive } from '../state/engine/liveness.js';
import { readOwner } from '../state/engine/lock-owner.js';
import type { HostIO } from '../state/io.js';
import { findHerdrBinary } from '../terminal/herdr/locate.js';
import { localView } from './local-view.js';
import type { HostView } from './view.js';

/** A one-host fleet's only view, or undefined when the full reader must answer. */
export async function glanceLocalHost(io: HostIO): Promise<HostView | undefined> {
  // Peers from the config or met on the fleet bus (fleet.ts) are the full reader's.
  if (io.config.hosts.length > 0 || io.config.fleet.bus.length > 0) return undefined;
  const [alone, up, snapshot, reservations] = await Promise.all([
    noHerdrPeers(io),
    serviceUp(io),
    readJson(io.paths.host).then((value) => (isSnapshot(value) ? value : undefined)),
    readJson(io.paths.placements).then(reservationsOf),
  ]);
  if (!alone || !up || snapshot === undefined || reservations === undefined) return undefined;
  return localView({ snapshot, service: 'up', reservations }, io.config, io.now());
}

/** The parsed JSON of a regular file; null when it does not exist, undefined when in doubt. */
async function readJson(path: string): Promise<unknown> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: a FIFO in its place can never block; it fails the isFile check below.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    return JSON.parse(await handle.readFile('utf8')) as unknown;
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Up only when the lock's owner record names a process alive on this host (lock.ts's own rule). */
async function serviceUp(io: HostIO): Promise<boolean> {
  const owner = await readOwner(`${io.paths.serviceLock}.lock/owner`);
  return owner !== null && identityAlive(owner) === true;
}

/** No herdr binary, or its shared machine list (machine-list.ts) is this Herdr's, fresh and empty. */
async function noHerdrPeers(io: HostIO): Promise<boolean> {
  const binary = await findHerdrBinary(io.env);
  if (binary === undefined) return true;
  const entry = await readJson(io.paths.machineList);
  if (!isRecord(entry)) return false;
  const now = io.now();
  return (
    entry.version === 1 &&
    entry.binary === binary &&
    entry.home === (io.env.HOME ?? null) &&
    entry.xdg_config_home === (io.env.XDG_CONFIG_HOME ?? null) &&
    isInt(entry.read_ms) &&
    entry.read_ms <= now &&
    now - entry.read_ms < PEER_READ_EVERY_MS &&
    (entry.machines === null || (Array.isArray(entry.machines) && entry.machines.length === 0))
  );
}

/** placements.json's reservations ([] without the file), checked as PlacementsSchema would. */
function reservationsOf(value: unknown): Reservation[] | undefined {
  if (value === null) return [];
  if (!isRecord(value) || value.version !== 1 || !Array.isArray(value.reservations)) return undefined;
  const ok = value.reservations.every(
    (r: unknown) =>
      isRecord(r) &&
      typeof r.id === 'string' &&
      r.id.length > 0 &&
      isInt(r.created_ms) &&
      isInt(r.expires_ms) &&
      (r.owner === null || typeof r.owner === 'string'),
  );
  return ok ? (value.reservations as Reservation[]) : undefined;
}

/** The fields of host.json the line and the brief read, with the bounds HostSnapshotSchema sets. */
function isSnapshot(value: unknown): value is HostSnapshot {
  if (!isRecord(value) || value.version !== 1 || !isInt(value.sample_ms)) return false;
  const { host, liveness, probe, headroom, errors, facts } = value;
  return (
    isRecord(host) &&
    nonEmpty(host.id) &&
    nonEmpty(host.label) &&
    typeof host.hostname === 'string' &&
    isRecord(liveness) &&
    isInt(liveness.interval_ms) &&
    liveness.interval_ms > 0 &&
    isRecord(headroom) &&
    Array.isArray(errors) &&
    errors.every((e: unknown) => typeof e === 'string') &&
    (facts === undefined || facts === null || isRecord(facts)) &&
    isProbe(probe)
  );
}

function isProbe(probe: unknown): boolean {
  if (!isRecord(probe)) return false;
  const { memory, disk, agents, agent_panes: panes } = probe;
  return (
    typeof probe.os === 'string' &&
    isInt(probe.cores) &&
    probe.cores > 0 &&
    atLeastZero(probe.load1) &&
    (probe.busy === null || (atLeastZero(probe.busy) && probe.busy <= 1)) &&
    (probe.pressure_level === null || isInt(probe.pressure_level)) &&
    isRecord(memory) &&
    atLeastZero(memory.total_bytes) &&
    isNumber(memory.free_bytes) &&
    isRecord(disk) &&
    atLeastZero(disk.total_bytes) &&
    atLeastZero(disk.free_bytes) &&
    isRecord(agents) &&
    isCount(agents.live) &&
    isCount(agents.active) &&
    (panes === undefined ||
      (Array.isArray(panes) &&
        panes.every(
          (p: unknown) => isRecord(p) && (p.stalled_since_ms === null || isInt(p.stalled_since_ms)),
        )))
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isInt(value: unknown): value is number {
  return Number.isSafeInteger(value);
}

function atLeastZero(value: unknown): value is number {
  return isNumber(value) && value >= 0;
}

function isCount(value: unknown): value is number {
  return isInt(value) && value >= 0;
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
