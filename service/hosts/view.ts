// A host as the CLI and sidebar see it: its latest snapshot, whether its service runs, its live
// reservations and the headroom recomputed now. `status --json` prints a list of these; the schema
// is the contract for scripts and the Pi widget.

import * as z from 'zod/mini';
import type { HostMeasure } from '../core/headroom.js';
import { HeadroomSchema, type HostSnapshot, ProbeSchema, ReservationSchema } from '../state/schemas.js';

export const HostViewSchema = z.object({
  id: z.string(),
  label: z.string(),
  hostname: z.nullable(z.string()),
  local: z.boolean(),
  service: z.enum(['up', 'down', 'unknown']),
  reachable: z.boolean(),
  sample_ms: z.nullable(z.int()),
  age_ms: z.nullable(z.int()),
  interval_ms: z.nullable(z.int()),
  probe: z.nullable(ProbeSchema),
  headroom: HeadroomSchema,
  reservations: z.array(ReservationSchema),
  errors: z.array(z.string()),
  retry_ms: z.nullable(z.int()),
});

export const StatusReportSchema = z.object({
  version: z.literal(1),
  now_ms: z.int(),
  hosts: z.array(HostViewSchema),
});

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

/** `place --json`: the reservation made, or every host's refusal. */
export const PlaceResultSchema = z.union([
  z.object({
    placed: z.literal(true),
    host: z.string(),
    label: z.string(),
    reservation: z.string(),
    expires_ms: z.int(),
  }),
  z.object({
    placed: z.literal(false),
    refusals: z.array(z.object({ id: z.string(), label: z.string(), reason: z.array(z.string()) })),
  }),
]);

export type PlaceResult = z.infer<typeof PlaceResultSchema>;
