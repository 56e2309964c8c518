// The records of the fleet: what a host is (host.json's facts), a peer's answer to `host snapshot`,
// the peer cache entry (peers/ID.json) and the shared `herdr machine list`. The core owns them;
// service/state/schemas (host-schemas.ts, peer-schemas.ts) checks its schemas against them.

import type { JobSummary } from '../jobs/job-types.js';
import type { Headroom, ServiceState } from '../placement/headroom.js';
import type { Probe, Reservation } from '../placement/host-types.js';
import type { UnreachableCategory } from './unreachable.js';

/** A host's identity (identity.json, `h_` and 12 base32 letters): the one spelling of its shape. */
export const HOST_IDENTITY = /^h_[a-z2-7]{12}$/;

/**
 * What a host is (systeminformation, read once when serve starts): its OS and kernel, CPU model
 * and core counts, total memory and GPUs with their memory. A part that could not be read is null,
 * with the reason in `errors`. Text is escape-free.
 */
export type HostFacts = {
  read_ms: number;
  os: { platform: string; distro: string; release: string; kernel: string; arch: string } | null;
  cpu: {
    model: string;
    /** Logical CPUs, physical cores, and of those the performance and efficiency cores. */
    cores: number;
    physical_cores: number;
    performance_cores: number;
    efficiency_cores: number;
  } | null;
  memory_bytes: number | null;
  gpus: { vendor: string; model: string; memory_bytes: number | null }[] | null;
  errors: string[];
};

/** `host snapshot` as a peer answers it; `service` is absent from peers without the liveness field. */
export type PeerReply = {
  now_ms: number;
  host: {
    hostname: string | null;
    service?: ServiceState;
    sample_ms: number | null;
    interval_ms?: number | null;
    probe: Probe | null;
    headroom: Headroom;
    reservations: Reservation[];
    errors: string[];
    /** Absent from peers before host facts; a reply whose facts do not parse is still read. */
    facts?: HostFacts | null;
  };
  jobs?: JobSummary[];
  /**
   * What a host's document on the fleet bus adds to its snapshot: its identity as an owner (where
   * records for its items are posted: core/fleet/bus-rules.ts busIdOfIdentity) and whether it
   * answers the host verbs on the bus. Absent from SSH replies and from an older dogsled's document.
   */
  bus?: { identity: string | null; rpc: boolean };
};

/** peers/ID.json: a peer's last answer and how its reads fare. */
export type PeerEntry = {
  version: 1;
  id: string;
  target: string;
  attempt_ms: number | null;
  read_ms: number | null;
  unreachable: UnreachableCategory | null;
  failures: number;
  retry_at_ms: number | null;
  /** The last reply that answered (kept while the peer is unreachable: its age shows). */
  reply: PeerReply | null;
  /**
   * `bus`: written by this host's service from the fleet bus (never read over SSH); `read_ms` is
   * when the peer's key last changed, on this host's clock.
   */
  via?: 'bus';
};

/**
 * machine-list.json: the last `herdr machine list` of this host, keyed by what decides which list
 * Herdr prints (its binary, HOME and XDG_CONFIG_HOME). The terminal layer checks the machines.
 */
export type MachineList = {
  version: 1;
  binary: string;
  home: string | null;
  xdg_config_home: string | null;
  read_ms: number;
  /** null: this Herdr has no machine verbs. */
  machines: Record<string, unknown>[] | null;
};
