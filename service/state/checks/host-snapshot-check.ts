// host.json checked by hand (engine/record-check.ts): the lean `board --json` reads the agent panes
// of this host's snapshot without loading zod. Judges exactly as HostSnapshotSchema
// (state/schemas/host-schemas.ts) does and gives the same data back; the unit test
// hand-checks.test.ts holds the two together.

import type { HostSnapshot } from '../../core/placement/host-types.js';
import {
  array,
  boolean,
  handCheck,
  int,
  intAtLeast,
  type Judge,
  looseObject,
  nullable,
  number,
  optional,
  string,
  versionOne,
} from './hand-check.js';
import { JOB_RECORD_FIELDS } from './job-record-check.js';

const text = string();
const count = intAtLeast('>=0');
const bytes = number('>=0');

const AgentPane = looseObject({
  pane: text,
  agent: text,
  state: text,
  name: nullable(text),
  transcript: nullable(text),
  transcript_modified: nullable(int),
  terminal_id: text,
  completion_seq: count,
  cwd: nullable(text),
  model: nullable(text),
  activity: nullable(looseObject({ at_ms: nullable(int), kind: text, text })),
  branch: nullable(text),
  ahead: nullable(count),
  dirty: nullable(boolean),
  landed: nullable(boolean),
  stalled_since_ms: nullable(int),
  state_since_ms: int,
});

export const Probe = looseObject({
  os: text,
  cores: intAtLeast('>0'),
  load1: bytes,
  cpu_ticks: nullable(looseObject({ total: bytes, idle: bytes })),
  busy: nullable(number('>=0', 1)),
  memory: looseObject({
    total_bytes: bytes,
    used_bytes: bytes,
    free_bytes: number(),
    scope: text,
    cgroup: nullable(text),
    limit_bytes: nullable(bytes),
  }),
  pressure_level: nullable(int),
  disk: looseObject({ path: text, total_bytes: bytes, free_bytes: bytes }),
  agents: looseObject({ live: count, active: count }),
  agent_panes: optional(array(AgentPane)),
  terminal: optional(looseObject({ kind: text, why: text })),
});

export const Headroom = looseObject({
  free_cores: nullable(number()),
  measured: nullable(number()),
  declared: nullable(number()),
  eligible: boolean,
  reason: array(text),
  reservations: count,
  live_agents: count,
  active_agents: count,
});

const SUMMARY = [
  'id',
  'command',
  'cwd',
  'host',
  'owner',
  'pane',
  'created_ms',
  'started_ms',
  'ended_ms',
  'exit_code',
  'signal',
  'reason',
  'peak_rss_bytes',
  'cpu_ms',
];
export const JobSummary = looseObject(
  Object.fromEntries(Object.entries(JOB_RECORD_FIELDS).filter(([key]) => SUMMARY.includes(key))) as Record<
    string,
    Judge
  >,
);

export const Facts = looseObject({
  read_ms: int,
  os: nullable(looseObject({ platform: text, distro: text, release: text, kernel: text, arch: text })),
  cpu: nullable(
    looseObject({
      model: text,
      cores: count,
      physical_cores: count,
      performance_cores: count,
      efficiency_cores: count,
    }),
  ),
  memory_bytes: nullable(bytes),
  gpus: nullable(array(looseObject({ vendor: text, model: text, memory_bytes: nullable(bytes) }))),
  errors: array(text),
});

export const HostSnapshotCheck = handCheck<HostSnapshot>(
  looseObject({
    version: versionOne,
    host: looseObject({ id: string(1), label: string(1), hostname: text }),
    sample_ms: int,
    liveness: looseObject({
      pid: intAtLeast('>0'),
      started_ms: int,
      interval_ms: intAtLeast('>0'),
      version: text,
    }),
    probe: Probe,
    headroom: Headroom,
    errors: array(text),
    jobs: optional(array(JobSummary)),
    facts: optional(nullable(Facts)),
  }),
);
