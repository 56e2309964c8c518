// A state schema is checked against the record the core defines (service/state/engine/schema-match.ts),
// at compile time. `npm run check` compiles this file with tsc: every `@ts-expect-error` below has to
// meet the refusal it names, so a check that stopped refusing a drift fails the build. The runtime
// tests show why the check has to be tsc's: zod parses a drifted record without a word.
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import type { InboxRecord } from '../../../service/core/inbox/inbox-types.js';
import type { JobRequest, Ticket } from '../../../service/core/placement/queue-types.js';
import type { Check, Matches } from '../../../service/state/engine/schema-match.js';
import type { InboxRecordSchema } from '../../../service/state/schemas/inbox-schemas.js';
import type { TicketSchema } from '../../../service/state/schemas/queue-items-schemas.js';

/** A record as the core would define it, and its schema as the storage layer would write it. */
type Lease = { id: string; owner: string | null; until_ms: number; tags?: string[]; at: { host: string } };
const LeaseSchema = z.looseObject({
  id: z.string(),
  owner: z.nullable(z.string()),
  until_ms: z.int(),
  tags: z.optional(z.array(z.string())),
  at: z.looseObject({ host: z.string() }),
});

const Added = z.extend(LeaseSchema, { pin: z.string() });
const Lacking = z.omit(LeaseSchema, { until_ms: true });
const Retyped = z.extend(LeaseSchema, { until_ms: z.string() });
const Optional = z.extend(LeaseSchema, { owner: z.optional(z.nullable(z.string())) });
const Nested = z.extend(LeaseSchema, { at: z.looseObject({ host: z.nullable(z.string()) }) });

type RequestCwd = Omit<JobRequest, 'cwd'> & { cwd: string | null };
type TicketRequestCwd = Omit<Ticket, 'request'> & { request: RequestCwd | null };
type InboxStateWidened = Omit<InboxRecord, 'state'> & { state: string };

/** What tsc accepts: the fixture, and the real schemas against their records. */
type Agreed = [
  Check<Matches<typeof LeaseSchema, Lease>>,
  Check<Matches<typeof TicketSchema, Ticket>>,
  Check<Matches<typeof InboxRecordSchema, InboxRecord>>,
];

/** What tsc refuses: each line's directive fails the build unless the line is an error. */
type Refused = [
  // @ts-expect-error the schema has a field the record lacks (only_in_schema: "pin")
  Check<Matches<typeof Added, Lease>>,
  // @ts-expect-error the record has a field the schema lacks (only_in_core: "until_ms")
  Check<Matches<typeof Lacking, Lease>>,
  // @ts-expect-error a field of another type (differ: "until_ms")
  Check<Matches<typeof Retyped, Lease>>,
  // @ts-expect-error a required field the schema makes optional (optional_differs: "owner")
  Check<Matches<typeof Optional, Lease>>,
  // @ts-expect-error a field inside a nested object (differ: "at")
  Check<Matches<typeof Nested, Lease>>,
  // @ts-expect-error the core dropped a field the schema still reads (only_in_schema: "hold")
  Check<Matches<typeof TicketSchema, Omit<Ticket, 'hold'>>>,
  // @ts-expect-error the core added a field the schema does not read (only_in_core: "priority")
  Check<Matches<typeof TicketSchema, Ticket & { priority: number }>>,
  // @ts-expect-error a field two levels down changed type (differ: "request")
  Check<Matches<typeof TicketSchema, TicketRequestCwd>>,
  // @ts-expect-error an enum the core widened (differ: "state")
  Check<Matches<typeof InboxRecordSchema, InboxStateWidened>>,
];

describe('a state schema against its core record', () => {
  it('agrees field for field, the loose fields a newer dogsled wrote aside', () => {
    expectTypeOf<Agreed>().toEqualTypeOf<[true, true, true]>();
    expectTypeOf<Matches<typeof Added, Lease>>().toEqualTypeOf<{
      only_in_schema: 'pin';
      only_in_core: never;
      differ: never;
      optional_differs: never;
    }>();
    const read = LeaseSchema.parse({
      id: 'l_1',
      owner: null,
      until_ms: 5,
      at: { host: 'a', rack: 2 },
      newer: true,
    });
    expect(read).toEqual({ id: 'l_1', owner: null, until_ms: 5, at: { host: 'a', rack: 2 }, newer: true });
  });

  it('is refused only by tsc: zod parses each drifted schema as happily as the right one', () => {
    expectTypeOf<Refused['length']>().toEqualTypeOf<9>();
    const record = { id: 'l_1', owner: 'w1:p1', until_ms: 5, at: { host: 'a' }, pin: 'x' };
    for (const schema of [LeaseSchema, Added, Lacking, Optional, Nested]) {
      expect(schema.safeParse(record).success).toBe(true);
    }
  });
});
