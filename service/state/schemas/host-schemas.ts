// zod schemas of every state file this host writes. Objects are loose: a record written by a newer
// dogsled may carry fields this version does not know, and read-modify-write keeps them.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import type { Activity, AgentPane } from '../../core/agents/agent-pane-types.js';
import type { HostFacts } from '../../core/fleet/fleet-types.js';
import type { JobRecord, JobSummary } from '../../core/jobs/job-types.js';
import type { CpuTicks } from '../../core/placement/cpu-busy.js';
import type { Headroom } from '../../core/placement/headroom.js';
import type {
  Disk,
  HostIdentity,
  HostSnapshot,
  Liveness,
  Memory,
  Placements,
  Probe,
  Reservation,
  Sample,
  ServiceHolder,
} from '../../core/placement/host-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';

const count = lazySchema(() => z.int().check(z.nonnegative()));
const ms = lazySchema(() => z.int());
const bytes = lazySchema(() => z.number().check(z.nonnegative()));

export const CpuTicksSchema = lazySchema(() =>
  z.looseObject({
    total: z.number().check(z.nonnegative()),
    idle: z.number().check(z.nonnegative()),
  }),
);

export const MemorySchema = lazySchema(() =>
  z.looseObject({
    total_bytes: bytes,
    used_bytes: bytes,
    free_bytes: z.number(),
    /** Which scope is reported: "host" (/proc/meminfo, vm_stat) or "cgroup" (the governing limit). */
    scope: z.string(),
    /** The cgroup whose finite limit governs, even when the host scope had less free memory. */
    cgroup: z.nullable(z.string()),
    limit_bytes: z.nullable(bytes),
  }),
);

export const DiskSchema = lazySchema(() =>
  z.looseObject({ path: z.string(), total_bytes: bytes, free_bytes: bytes }),
);

/** The session's latest activity, read from the tail of its transcript; text is escape-free. */
export const ActivitySchema = lazySchema(() =>
  z.looseObject({
    at_ms: z.nullable(ms),
    kind: z.string(),
    text: z.string(),
  }),
);

/** One Herdr pane that hosts a coding agent, as the service observed it this tick. */
export const AgentPaneSchema = lazySchema(() =>
  z.looseObject({
    pane: z.string(),
    agent: z.string(),
    /** Herdr's agent_status: working, blocked, done, idle or unknown. */
    state: z.string(),
    name: z.nullable(z.string()),
    /** null when the transcript is absent, ambiguous or unreadable; such an agent never stalls. */
    transcript: z.nullable(z.string()),
    transcript_modified: z.nullable(ms),
    terminal_id: z.string(),
    /** Herdr's state_change_seq: grows on every lifecycle change. */
    completion_seq: count,
    cwd: z.nullable(z.string()),
    model: z.nullable(z.string()),
    activity: z.nullable(ActivitySchema),
    /** The checkout's branch (null when detached or not a repository). */
    branch: z.nullable(z.string()),
    /** Commits on the branch that the default branch does not have. */
    ahead: z.nullable(count),
    dirty: z.nullable(z.boolean()),
    landed: z.nullable(z.boolean()),
    stalled_since_ms: z.nullable(ms),
    state_since_ms: ms,
  }),
);

export const ProbeSchema = lazySchema(() =>
  z.looseObject({
    os: z.string(),
    cores: z.int().check(z.positive()),
    load1: z.number().check(z.nonnegative()),
    /** Cumulative /proc/stat ticks on Linux; null where the platform measures busy directly. */
    cpu_ticks: z.nullable(CpuTicksSchema),
    /** Share of the last interval the CPUs were busy, 0..1; null when no sample exists yet. */
    busy: z.nullable(z.number().check(z.minimum(0), z.maximum(1))),
    memory: MemorySchema,
    /** macOS memory pressure level (1 normal, 2 warn, 4 critical); null elsewhere. */
    pressure_level: z.nullable(z.int()),
    disk: DiskSchema,
    agents: z.looseObject({ live: count, active: count }),
    /** Absent in snapshots from versions before the terminal layer; always written now. */
    agent_panes: z.optional(z.array(AgentPaneSchema)),
    /** The terminal backend the service reads agents through (herdr-socket, herdr-cli, tmux, headless). */
    terminal: z.optional(z.looseObject({ kind: z.string(), why: z.string() })),
  }),
);

export const HeadroomSchema = lazySchema(() =>
  z.looseObject({
    free_cores: z.nullable(z.number()),
    measured: z.nullable(z.number()),
    declared: z.nullable(z.number()),
    eligible: z.boolean(),
    reason: z.array(z.string()),
    reservations: count,
    live_agents: count,
    active_agents: count,
  }),
);

export const HostIdentitySchema = lazySchema(() =>
  z.looseObject({
    id: z.string().check(z.minLength(1)),
    label: z.string().check(z.minLength(1)),
    hostname: z.string(),
  }),
);

/** Who publishes this snapshot; readers elsewhere judge liveness from it and the snapshot age. */
export const LivenessSchema = lazySchema(() =>
  z.looseObject({
    pid: z.int().check(z.positive()),
    started_ms: ms,
    interval_ms: z.int().check(z.positive()),
    version: z.string(),
  }),
);

/** A job record: jobs/ID.json, which `run` creates and `exec` completes (job-records.ts). */
export const JobRecordSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    id: z.string().check(z.minLength(1)),
    /** The argv that `exec` ran (never a shell string). */
    command: z.array(z.string()).check(z.minLength(1)),
    cwd: z.string(),
    /** The host id the job ran on. */
    host: z.string(),
    /** The pane that asked for the job, when the caller ran inside Herdr. */
    owner: z.nullable(z.string()),
    /** The pane the job runs in; null for a headless job. */
    pane: z.nullable(z.string()),
    created_ms: ms,
    started_ms: z.nullable(ms),
    /** Set once, when the final record is saved; a job without it has not ended. */
    ended_ms: z.nullable(ms),
    exit_code: z.nullable(z.int()),
    /** The signal that ended the child (SIGTERM...), null when it exited. */
    signal: z.nullable(z.string()),
    /** Why dogsled ended it (timeout, idle-timeout, stop...), null for a natural end. */
    reason: z.nullable(z.string()),
    /** Herdr's terminal id of `pane`: a pane id can be reused by a later server, a terminal id not. */
    terminal_id: z.optional(z.nullable(z.string())),
    workspace: z.optional(z.nullable(z.string())),
    tab: z.optional(z.nullable(z.string())),
    /** The exec wrapper's pid and its /proc start time (clock ticks), so a reused pid is not it. */
    wrapper_pid: z.optional(z.nullable(z.int())),
    wrapper_start: z.optional(z.nullable(z.number())),
    /** The command's process group (its leader's pid): what stop, timeouts and cleanup kill. */
    pgid: z.optional(z.nullable(z.int())),
    pgid_start: z.optional(z.nullable(z.number())),
    /** Both default to unlimited (null). */
    timeout_ms: z.optional(z.nullable(ms)),
    idle_timeout_ms: z.optional(z.nullable(ms)),
    /** The queue ticket it was admitted from, and the owner's item that tracks it. */
    ticket: z.optional(z.nullable(z.string())),
    item: z.optional(z.nullable(z.string())),
    /** The placement reservation the job holds; it ends when the job ends, not at its TTL. */
    reservation: z.optional(z.nullable(z.string())),
    /**
     * What the job used, in its final record (null when it could not be measured): the largest
     * resident memory of its process group seen by the wrapper's samples, and the CPU time (user +
     * system) of its command and every descendant the command waited for.
     */
    peak_rss_bytes: z.optional(z.nullable(z.number().check(z.nonnegative()))),
    cpu_ms: z.optional(z.nullable(z.number().check(z.nonnegative()))),
  }),
);

/** A job as host.json publishes it, so `ps --all` can read a host's jobs from its snapshot. */
export const JobSummarySchema = lazySchema(() =>
  z.pick(JobRecordSchema, {
    id: true,
    command: true,
    cwd: true,
    host: true,
    owner: true,
    pane: true,
    created_ms: true,
    started_ms: true,
    ended_ms: true,
    exit_code: true,
    signal: true,
    reason: true,
    peak_rss_bytes: true,
    cpu_ms: true,
  }),
);

/**
 * What this host is (systeminformation, read once when serve starts): its OS and kernel, CPU model
 * and core counts, total memory and GPUs with their memory. A part that could not be read is null,
 * with the reason in `errors`. Text is escape-free.
 */
export const HostFactsSchema = lazySchema(() =>
  z.looseObject({
    read_ms: ms,
    os: z.nullable(
      z.looseObject({
        platform: z.string(),
        distro: z.string(),
        release: z.string(),
        kernel: z.string(),
        arch: z.string(),
      }),
    ),
    cpu: z.nullable(
      z.looseObject({
        model: z.string(),
        /** Logical CPUs, physical cores, and of those the performance and efficiency cores. */
        cores: count,
        physical_cores: count,
        performance_cores: count,
        efficiency_cores: count,
      }),
    ),
    memory_bytes: z.nullable(bytes),
    gpus: z.nullable(
      z.array(z.looseObject({ vendor: z.string(), model: z.string(), memory_bytes: z.nullable(bytes) })),
    ),
    errors: z.array(z.string()),
  }),
);

export const HostSnapshotSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    host: HostIdentitySchema,
    sample_ms: ms,
    liveness: LivenessSchema,
    probe: ProbeSchema,
    headroom: HeadroomSchema,
    errors: z.array(z.string()),
    /** This host's job records (ended ones for 24 hours); absent in snapshots before jobs. */
    jobs: z.optional(z.array(JobSummarySchema)),
    /** What the host is (HostFactsSchema); null until read after start, absent from older versions. */
    facts: z.optional(z.nullable(HostFactsSchema)),
  }),
);

/** A reservation on this host; each host keeps only its own in placements.json. */
export const ReservationSchema = lazySchema(() =>
  z.looseObject({
    id: z.string().check(z.minLength(1)),
    created_ms: ms,
    expires_ms: ms,
    /** The pane that asked, when the caller runs inside Herdr. */
    owner: z.nullable(z.string()),
  }),
);

export const PlacementsSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    reservations: z.array(ReservationSchema),
  }),
);

export const SampleSchema = lazySchema(() =>
  z.looseObject({
    ts_ms: ms,
    cores: z.int().check(z.positive()),
    busy: z.nullable(z.number()),
    load1: z.number(),
    memory: z.looseObject({ total_bytes: bytes, used_bytes: bytes, free_bytes: z.number() }),
    pressure_level: z.nullable(z.int()),
    disk: z.looseObject({ total_bytes: bytes, free_bytes: bytes }),
    reservations: count,
    live_agents: count,
    active_agents: count,
    free_cores: z.nullable(z.number()),
    eligible: z.boolean(),
    reason: z.array(z.string()),
  }),
);

/** Written beside the service lock by its holder, so a second `serve` can name it. */
export const ServiceHolderSchema = lazySchema(() =>
  z.looseObject({
    pid: z.int().check(z.positive()),
    hostname: z.string(),
    started_ms: ms,
    version: z.string(),
  }),
);

export const EMPTY_PLACEMENTS: Placements = { version: 1, reservations: [] };

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type HostSchemasMatch = [
  Check<Matches<typeof CpuTicksSchema, CpuTicks>>,
  Check<Matches<typeof MemorySchema, Memory>>,
  Check<Matches<typeof DiskSchema, Disk>>,
  Check<Matches<typeof ActivitySchema, Activity>>,
  Check<Matches<typeof AgentPaneSchema, AgentPane>>,
  Check<Matches<typeof ProbeSchema, Probe>>,
  Check<Matches<typeof HeadroomSchema, Headroom>>,
  Check<Matches<typeof HostIdentitySchema, HostIdentity>>,
  Check<Matches<typeof LivenessSchema, Liveness>>,
  Check<Matches<typeof JobRecordSchema, JobRecord>>,
  Check<Matches<typeof JobSummarySchema, JobSummary>>,
  Check<Matches<typeof HostFactsSchema, HostFacts>>,
  Check<Matches<typeof HostSnapshotSchema, HostSnapshot>>,
  Check<Matches<typeof ReservationSchema, Reservation>>,
  Check<Matches<typeof PlacementsSchema, Placements>>,
  Check<Matches<typeof SampleSchema, Sample>>,
  Check<Matches<typeof ServiceHolderSchema, ServiceHolder>>,
];
