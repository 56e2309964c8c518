// Where the peers come from: Herdr's saved machines (`herdr machine list --json`, shared for 10 s:
// machine-list.ts) when this Herdr has any, else the `[[hosts]]` list of dogsled's own config. The local host is never in the list;
// a machine whose id could not name a cache file is left out with a warning, never guessed at.

import { squeezedLine } from '../core/text/clean.js';
import { HOST_ID } from '../state/config/config-rules.js';
import type { HostIO } from '../state/io.js';
import type { Machine } from '../terminal/port-records.js';
import { busPeers } from './bus-peers.js';
import { machineList } from './machine-list.js';

export interface PeerHost {
  /** The Herdr machine id, or the `[[hosts]]` id. */
  id: string;
  label: string;
  /** What ssh is given. */
  target: string;
  enabled: boolean;
  /** `bus`: a host met on the fleet bus, whose cache entry this host's service writes. */
  via?: 'bus';
}

export interface Fleet {
  source: 'herdr' | 'config';
  /** Every peer, disabled ones included, in the source's order. */
  peers: PeerHost[];
}

/** `herdr machine list` is a local command; a Herdr slower than this is left for the config list. */
const MACHINE_LIST_TIMEOUT_MS = 5_000;

/** Herdr may leave a label or target out: the id stands in for the label, the label for the target. */
export function peerOfMachine(machine: Machine): PeerHost {
  const label = machine.label ?? machine.id;
  return { id: machine.id, label, target: machine.target ?? label, enabled: machine.enabled ?? true };
}

type FleetIO = Pick<HostIO, 'env' | 'config' | 'warn' | 'paths' | 'now'>;

/** `fresh` asks Herdr even when the shared list is young (`dogsled machine`). */
export async function readFleet(io: FleetIO, options: { fresh?: boolean } = {}): Promise<Fleet> {
  const machines = await machineList(io, MACHINE_LIST_TIMEOUT_MS, options).catch((error: unknown) => {
    io.warn(
      `dogsled: warning: herdr machine list: ${squeezedLine(String((error as Error).message ?? error))}`,
    );
    return null;
  });
  if (machines !== null && machines.length > 0) {
    const peers: PeerHost[] = [];
    for (const machine of machines) {
      if (!HOST_ID.test(machine.id) || machine.id === 'local') {
        io.warn(
          `dogsled: warning: herdr machine "${squeezedLine(machine.id)}": not a usable host id, left out`,
        );
        continue;
      }
      peers.push(peerOfMachine(machine));
    }
    return { source: 'herdr', peers: await withBusPeers(io, peers) };
  }
  return {
    source: 'config',
    peers: await withBusPeers(
      io,
      io.config.hosts.map((host) => ({ ...host })),
    ),
  };
}

/** The hosts met on the bus, after the listed ones; a listed id stays an SSH peer. */
async function withBusPeers(io: FleetIO, listed: PeerHost[]): Promise<PeerHost[]> {
  if (io.config.fleet.bus.length === 0) return listed;
  const known = new Set(listed.map((peer) => peer.id));
  const met = await busPeers(io).catch(() => []);
  return [...listed, ...met.filter((peer) => !known.has(peer.id))];
}

/** The enabled peers: the hosts status shows and placement ranks besides this one. */
export async function enabledPeers(io: FleetIO): Promise<PeerHost[]> {
  return (await readFleet(io)).peers.filter((peer) => peer.enabled);
}
