// peers/ID.json checked by hand (engine/record-check.ts): a warm fleet command (`status` with every
// peer's entry fresh) reads each entry, and building and running PeerEntrySchema was most of its own
// work. Judges exactly as PeerEntrySchema (state/schemas/peer-schemas.ts) does and gives the same
// data back (the reply's strings made plain lines by the same plainStrings); the unit test
// hand-checks.test.ts holds the two together. The cache (hosts/peer-cache.ts) judges an entry this
// check refuses again with the schema, so an entry in doubt fares exactly as it did.

import { HOST_IDENTITY, type PeerEntry, type PeerReply } from '../../core/fleet/fleet-types.js';
import { UNREACHABLE_CATEGORIES } from '../../core/fleet/unreachable.js';
import { plainStrings } from '../../core/text/clean.js';
import type { CheckIssue } from '../engine/record-check.js';
import {
  array,
  boolean,
  handCheck,
  int,
  intAtLeast,
  type Judge,
  looseObject,
  nullable,
  oneOf,
  optional,
  string,
  versionOne,
} from './hand-check.js';
import { Facts, Headroom, JobSummary, Probe } from './host-snapshot-check.js';

const text = string();

/** `z.string().check(z.regex(HOST_IDENTITY))`, in zod's English words. */
const identity: Judge = (value, path, issues) => {
  if (text(value, path, issues) === undefined) return undefined;
  if (HOST_IDENTITY.test(value as string)) return value;
  issues.push({ path: [...path], message: `Invalid string: must match pattern ${HOST_IDENTITY}` });
  return undefined;
};

/** `z.catch(z.nullable(Facts), null)`: facts that do not parse are null, and no issue. */
const caughtFacts: Judge = (value, path) => {
  const mine: CheckIssue[] = [];
  const judged = nullable(Facts)(value, path, mine);
  return mine.length > 0 ? null : judged;
};

const Reply = looseObject({
  now_ms: int,
  host: looseObject({
    hostname: nullable(text),
    service: optional(oneOf(['up', 'down', 'unknown'])),
    sample_ms: nullable(int),
    interval_ms: optional(nullable(int)),
    probe: nullable(Probe),
    headroom: Headroom,
    reservations: array(
      looseObject({ id: string(1), created_ms: int, expires_ms: int, owner: nullable(text) }),
    ),
    errors: array(text),
    facts: optional(caughtFacts),
  }),
  jobs: optional(array(JobSummary)),
  bus: optional(looseObject({ identity: nullable(identity), rpc: boolean })),
});

/** The reply as PeerReplySchema gives it: checked, then every string in it a plain line. */
const plainReply: Judge = (value, path, issues) => {
  const judged = Reply(value, path, issues);
  return judged === undefined ? undefined : plainStrings(judged);
};

/**
 * A peer's `host snapshot` answer as PeerReplySchema judges it: a cold read (hosts/peer-cache.ts,
 * judgePeerRead) checks each reply by hand, where building the schema was the largest part of the
 * command's own work after the peer answered.
 */
export const PeerReplyCheck = handCheck<PeerReply>(plainReply);

export const PeerEntryCheck = handCheck<PeerEntry>(
  looseObject({
    version: versionOne,
    id: text,
    target: text,
    attempt_ms: nullable(int),
    read_ms: nullable(int),
    unreachable: nullable(oneOf(UNREACHABLE_CATEGORIES)),
    failures: intAtLeast('>=0'),
    retry_at_ms: nullable(int),
    reply: nullable(plainReply),
    via: optional(oneOf(['bus'])),
  }),
);
