// The records a host publishes and keeps about itself (host.json, placements.json, samples.jsonl,
// the service holder): what placement, status and the fleet rules read. The core owns them;
// service/state/schemas/host-schemas.ts checks its zod schemas against them at compile time. Type
// aliases, not interfaces: a record read loosely carries fields a newer dogsled wrote, and an alias
// fits the loose schemas' `[key: string]: unknown` when it is written back.

import type { AgentPane } from '../agents/agent-pane-types.js';
import type { HostFacts } from '../fleet/fleet-types.js';
import type { JobSummary } from '../jobs/job-types.js';
import type { CpuTicks } from './cpu-busy.js';
import type { Headroom } from './headroom.js';

export type Memory = {
  total_bytes: number;
  used_bytes: number;
  free_bytes: number;
  /** Which scope is reported: "host" (/proc/meminfo, vm_stat) or "cgroup" (the governing limit). */
  scope: string;
  /** The cgroup whose finite limit governs, even when the host scope had less free memory. */
  cgroup: string | null;
  limit_bytes: number | null;
};

export type Disk = { path: string; total_bytes: number; free_bytes: number };

/** One reading of this host: CPU, memory, disk and its agents. */
export type Probe = {
  os: string;
  cores: number;
  load1: number;
  /** Cumulative /proc/stat ticks on Linux; null where the platform measures busy directly. */
  cpu_ticks: CpuTicks | null;
  /** Share of the last interval the CPUs were busy, 0..1; null when no sample exists yet. */
  busy: number | null;
  memory: Memory;
  /** macOS memory pressure level (1 normal, 2 warn, 4 critical); null elsewhere. */
  pressure_level: number | null;
  disk: Disk;
  agents: { live: number; active: number };
  /** Absent in snapshots from versions before the terminal layer; always written now. */
  agent_panes?: AgentPane[];
  /** The terminal backend the service reads agents through (herdr-socket, herdr-cli, tmux, headless). */
  terminal?: { kind: string; why: string };
};

export type HostIdentity = { id: string; label: string; hostname: string };

/** Who publishes a snapshot; readers elsewhere judge liveness from it and the snapshot age. */
export type Liveness = { pid: number; started_ms: number; interval_ms: number; version: string };

/** host.json: what this host publishes each interval. */
export type HostSnapshot = {
  version: 1;
  host: HostIdentity;
  sample_ms: number;
  liveness: Liveness;
  probe: Probe;
  headroom: Headroom;
  errors: string[];
  /** This host's job records (ended ones for 24 hours); absent in snapshots before jobs. */
  jobs?: JobSummary[];
  /** What the host is; null until read after start, absent from older versions. */
  facts?: HostFacts | null;
};

/** A reservation on this host; each host keeps only its own in placements.json. */
export type Reservation = {
  id: string;
  created_ms: number;
  expires_ms: number;
  /** The pane that asked, when the caller runs inside Herdr. */
  owner: string | null;
};

export type Placements = { version: 1; reservations: Reservation[] };

/** One line of samples.jsonl: the measure and headroom of one interval. */
export type Sample = {
  ts_ms: number;
  cores: number;
  busy: number | null;
  load1: number;
  memory: { total_bytes: number; used_bytes: number; free_bytes: number };
  pressure_level: number | null;
  disk: { total_bytes: number; free_bytes: number };
  reservations: number;
  live_agents: number;
  active_agents: number;
  free_cores: number | null;
  eligible: boolean;
  reason: string[];
};

/** Written beside the service lock by its holder, so a second `serve` can name it. */
export type ServiceHolder = { pid: number; hostname: string; started_ms: number; version: string };
