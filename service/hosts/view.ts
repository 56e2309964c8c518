// A host as the CLI and sidebar see it: its latest snapshot, whether its service runs, its live
// reservations and the headroom recomputed now. The zod schemas of these documents live in
// view-schemas.ts: they are the contract for scripts (validated in tests), and building them costs
// start-up time that `status --line` does not spend.

import type * as z from 'zod/mini';
import type { HostMeasure } from '../core/headroom.js';
import type { HostSnapshot } from '../state/schemas.js';
import type { HostViewSchema, StatusReportSchema } from './view-schemas.js';

export type HostView = z.infer<typeof HostViewSchema>;
export type StatusReport = z.infer<typeof StatusReportSchema>;

/** The numbers of a snapshot that the placement rules read. */
export function measureOf(snapshot: HostSnapshot): HostMeasure {
  const { probe } = snapshot;
  return {
    sample_ms: snapshot.sample_ms,
    os: probe.os,
    cores: probe.cores,
    busy: probe.busy,
    memory_total_bytes: probe.memory.total_bytes,
    memory_free_bytes: probe.memory.free_bytes,
    disk_total_bytes: probe.disk.total_bytes,
    disk_free_bytes: probe.disk.free_bytes,
    pressure_level: probe.pressure_level,
    live_agents: probe.agents.live,
    active_agents: probe.agents.active,
  };
}
