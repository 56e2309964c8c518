// The peer cache's file (peers/ID.json): the last snapshot a peer answered with (`host snapshot`),
// when it was read on this host's clock, and how its reads fare (the failure category, the backoff).
// The reply is read loosely: a newer or older peer may add or lack fields; what the rules need is
// checked, and a reply that lacks it is a peer that did not answer as dogsled. Every string in it,
// known field or not, is made one escape-free line by the schema itself: whoever reads a peer's
// snapshot (status, place, ps, the board, the sidebar, MCP, Pi) reads it through this schema, from
// the wire or from the cache, so none of them sees a peer's raw text.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import {
  HOST_IDENTITY,
  type MachineList,
  type PeerEntry,
  type PeerReply,
} from '../../core/fleet/fleet-types.js';
import { UNREACHABLE_CATEGORIES } from '../../core/fleet/unreachable.js';
import { plainStrings } from '../../core/text/clean.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import {
  HeadroomSchema,
  HostFactsSchema,
  JobSummarySchema,
  ProbeSchema,
  ReservationSchema,
} from './host-schemas.js';
import '../engine/zod-messages.js';

const ms = lazySchema(() => z.int());

/** `host snapshot` as a peer answers it; `service` is absent from peers without the liveness field. */
export const PeerReplySchema = lazySchema(() =>
  z
    .looseObject({
      now_ms: ms,
      host: z.looseObject({
        hostname: z.nullable(z.string()),
        service: z.optional(z.enum(['up', 'down', 'unknown'])),
        sample_ms: z.nullable(ms),
        interval_ms: z.optional(z.nullable(z.int())),
        probe: z.nullable(ProbeSchema),
        headroom: HeadroomSchema,
        reservations: z.array(ReservationSchema),
        errors: z.array(z.string()),
        /** Absent from peers before host facts; a reply whose facts do not parse is still read. */
        facts: z.optional(z.catch(z.nullable(HostFactsSchema), null)),
      }),
      jobs: z.optional(z.array(JobSummarySchema)),
      bus: z.optional(
        z.looseObject({
          identity: z.nullable(z.string().check(z.regex(HOST_IDENTITY))),
          rpc: z.boolean(),
        }),
      ),
    })
    .check(z.overwrite((reply) => plainStrings(reply))),
);

export const PeerEntrySchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    id: z.string(),
    target: z.string(),
    attempt_ms: z.nullable(ms),
    read_ms: z.nullable(ms),
    unreachable: z.nullable(z.enum(UNREACHABLE_CATEGORIES)),
    failures: z.int().check(z.nonnegative()),
    retry_at_ms: z.nullable(ms),
    /** The last reply that answered (kept while the peer is unreachable: its age shows). */
    reply: z.nullable(PeerReplySchema),
    /**
     * `bus`: written by this host's service from the fleet bus (never read over SSH); `read_ms` is
     * when the peer's key last changed, on this host's clock.
     */
    via: z.optional(z.literal('bus')),
  }),
);

/**
 * machine-list.json: the last `herdr machine list` of this host, shared by every caller for 10 s
 * (hosts/machine-list.ts). Keyed by what decides which list Herdr prints: its binary, and the
 * HOME and XDG_CONFIG_HOME it ran with. The machines are checked again by the terminal layer.
 */
export const MachineListSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    binary: z.string(),
    home: z.nullable(z.string()),
    xdg_config_home: z.nullable(z.string()),
    read_ms: ms,
    /** null: this Herdr has no machine verbs. */
    machines: z.nullable(z.array(z.looseObject({}))),
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type PeerSchemasMatch = [
  Check<Matches<typeof PeerReplySchema, PeerReply>>,
  Check<Matches<typeof PeerEntrySchema, PeerEntry>>,
  Check<Matches<typeof MachineListSchema, MachineList>>,
];
