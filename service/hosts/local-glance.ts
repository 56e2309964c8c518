// The lean read behind `status --line` and `--brief`, which a prompt or a tab row runs every few
// seconds, and behind the prompt context hook (glanceLocalFacts): this host alone, its service up,
// its files read once each and checked by hand (no zod). It answers only the common case and says
// so by returning a view; on anything else (no snapshot, the service down or undecided, a peer that
// could be configured or met on the bus, a file it doubts) it returns undefined and the caller takes
// the full reader (local-facts.ts, peers.ts), which quarantines a bad file and words every other
// case. Checking only the fields the answer uses is deliberate: a file wrong elsewhere is
// quarantined by the next full read (status, place, the service).

import { atLeastZero, isCount, isInt, isNumber, isRecord, nonEmpty } from '../core/common/shape.js';
import { PEER_READ_EVERY_MS } from '../core/fleet/peer-reads.js';
import type { HostSnapshot, Reservation } from '../core/placement/host-types.js';
import { type Glanced, glanceJson, glanceText } from '../state/engine/glance-file.js';
import { identityAlive } from '../state/engine/liveness.js';
import { parseOwner } from '../state/engine/owner-record.js';
import type { HostIO, StateIO } from '../state/io.js';
import { findHerdrBinary } from '../terminal/herdr/locate.js';
import type { PeerHost } from './fleet.js';
import { type LocalFacts, localView } from './local-view.js';
import type { HostView } from './view.js';

/** A one-host fleet's only view, or undefined when the full reader must answer. */
export async function glanceLocalHost(io: HostIO): Promise<HostView | undefined> {
  if (!(await glanceAlone(io))) return undefined;
  const facts = glanceLocalFacts(io);
  if (facts === undefined || facts.snapshot === null) return undefined;
  return localView(facts, io.config, io.now());
}

/**
 * True when this host is the whole fleet: no peer configured, no fleet bus to meet peers on
 * (fleet.ts), no Herdr that could list machines. Otherwise peers are the full reader's.
 */
export async function glanceAlone(io: HostIO): Promise<boolean> {
  if (io.config.hosts.length > 0 || io.config.fleet.bus.length > 0) return false;
  return noHerdrPeers(io);
}

/**
 * The enabled peers of config.toml's `[[hosts]]` list, as readFleet gives them when that list is the
 * fleet (no fleet bus, no Herdr that could list machines); undefined when Herdr or the bus may add
 * or replace peers, which the full reader (fleet.ts) asks.
 */
export async function glanceListedPeers(io: HostIO): Promise<PeerHost[] | undefined> {
  if (io.config.fleet.bus.length > 0 || !(await noHerdrPeers(io))) return undefined;
  return io.config.hosts.filter((host) => host.enabled).map((host) => ({ ...host }));
}

/**
 * This host's facts with its service up, each file read once: `snapshot` null when there is no
 * host.json; undefined when the service is not up or a file is in doubt (readLocalFacts answers).
 * `reservations` when the caller read them under the placements lock.
 */
export function glanceLocalFacts(io: StateIO, reservations?: readonly Reservation[]): LocalFacts | undefined {
  if (!serviceUp(io)) return undefined;
  const host = glanceJson(io.paths.host);
  const onFile = reservations ?? reservationsOf(glanceJson(io.paths.placements));
  if (host === undefined || onFile === undefined) return undefined;
  if (!host.found) return { snapshot: null, service: 'up', reservations: onFile };
  return isSnapshot(host.value) ? { snapshot: host.value, service: 'up', reservations: onFile } : undefined;
}

/** Up only when the lock's owner record names a process alive on this host (lock.ts's own rule). */
export function serviceUp(io: StateIO): boolean {
  const text = glanceText(`${io.paths.serviceLock}.lock/owner`);
  const owner = typeof text === 'string' ? parseOwner(text) : null;
  return owner !== null && identityAlive(owner) === true;
}

/** No herdr binary, or its shared machine list (machine-list.ts) is this Herdr's, fresh and empty. */
async function noHerdrPeers(io: HostIO): Promise<boolean> {
  const binary = await findHerdrBinary(io.env);
  if (binary === undefined) return true;
  const glanced = glanceJson(io.paths.machineList);
  const entry = glanced?.found ? glanced.value : undefined;
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
function reservationsOf(glanced: Glanced | undefined): Reservation[] | undefined {
  if (glanced === undefined) return undefined;
  if (!glanced.found) return [];
  const value = glanced.value;
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
