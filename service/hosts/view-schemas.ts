// The zod schemas of `status --json` (and the host in `host snapshot`): the contract for scripts
// and the Pi widget, validated in tests. Only tests and tools import this module at run time.
// `place --json` and `run --json` are the CLI's documents (cli/output-schemas.ts).

import * as z from 'zod/mini';
import { lazySchema } from '../state/engine/lazy-schema.js';
import {
  HeadroomSchema,
  HostFactsSchema,
  ProbeSchema,
  ReservationSchema,
} from '../state/schemas/host-schemas.js';
import { ItemSchema, TicketSchema } from '../state/schemas/queue-items-schemas.js';
import { SweepPassSchema } from '../state/schemas/sweep-schemas.js';

export const HostViewSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    label: z.string(),
    hostname: z.nullable(z.string()),
    local: z.boolean(),
    service: z.enum(['up', 'down', 'unknown']),
    reachable: z.boolean(),
    /** Why the last read of a peer failed (`timeout`, `connection refused`, …); null when it answered. */
    unreachable: z.nullable(z.string()),
    sample_ms: z.nullable(z.int()),
    age_ms: z.nullable(z.int()),
    interval_ms: z.nullable(z.int()),
    probe: z.nullable(ProbeSchema),
    headroom: HeadroomSchema,
    reservations: z.array(ReservationSchema),
    errors: z.array(z.string()),
    retry_ms: z.nullable(z.int()),
    /** What the host is (OS, kernel, CPU, memory, GPUs); null before its service has read it. */
    facts: z.nullable(HostFactsSchema),
  }),
);

export const StatusReportSchema = lazySchema(() =>
  z.object({
    version: z.literal(1),
    now_ms: z.int(),
    hosts: z.array(HostViewSchema),
    /** Open items of every owner on this host (items.json), oldest first. */
    items: z.array(ItemSchema),
    /** Tickets not yet settled (pending or admitting; queue.json), in FIFO order. */
    queue: z.array(TicketSchema),
    /** This host's latest cleanup pass (sweep.json), null before the first one. */
    sweep: z.nullable(SweepPassSchema),
  }),
);
