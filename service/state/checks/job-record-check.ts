// A job record (jobs/ID.json) checked by hand (engine/record-check.ts): the lean `ps --json` and
// `board --json` read them without loading zod. Judges exactly as JobRecordSchema
// (state/schemas/host-schemas.ts) does and gives the same data back; the unit test
// hand-checks.test.ts holds the two together.

import { isInt, isNumber } from '../../core/common/shape.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import {
  array,
  handCheck,
  int,
  type Judge,
  looseObject,
  nullable,
  number,
  optional,
  string,
  versionOne,
} from './hand-check.js';
import { isJobSummary } from './job-summary-check.js';

const text = string();
const maybe = (judge: Judge) => optional(nullable(judge));

/** The record's fields, in the schema's order: host.json's job summaries pick from them. */
export const JOB_RECORD_FIELDS: Record<string, Judge> = {
  version: versionOne,
  id: string(1),
  command: array(text, 1),
  cwd: text,
  host: text,
  owner: nullable(text),
  pane: nullable(text),
  created_ms: int,
  started_ms: nullable(int),
  ended_ms: nullable(int),
  exit_code: nullable(int),
  signal: nullable(text),
  reason: nullable(text),
  terminal_id: maybe(text),
  workspace: maybe(text),
  tab: maybe(text),
  wrapper_pid: maybe(int),
  wrapper_start: maybe(number()),
  pgid: maybe(int),
  pgid_start: maybe(number()),
  timeout_ms: maybe(int),
  idle_timeout_ms: maybe(int),
  ticket: maybe(text),
  item: maybe(text),
  reservation: maybe(text),
  peak_rss_bytes: maybe(number('>=0')),
  cpu_ms: maybe(number('>=0')),
};

export const JobRecordCheck = handCheck<JobRecord>(looseObject(JOB_RECORD_FIELDS));

const maybeString = (v: unknown) => v === undefined || v === null || typeof v === 'string';
const maybeInt = (v: unknown) => v === undefined || v === null || isInt(v);
const maybeNumber = (v: unknown) => v === undefined || v === null || isNumber(v);

/**
 * JobRecordCheck's verdict alone, with no data built and no issue worded: for a record a reader
 * only needs to know is sound (the lean `ps --json` reads every record and prints only the running
 * ones). Each field read by name, so every record parsed from a file shares one fast path: the
 * generic check (a judge per field, a copy keyed by name) costs some 200,000 instructions a record
 * on a cold start, this a few thousand, and a host keeps a day of ended jobs. hand-checks.test.ts
 * holds it to JobRecordCheck.
 */
export function isJobRecord(value: unknown): value is JobRecord {
  if (!isJobSummary(value)) return false;
  const r = value as unknown as Record<string, unknown>;
  return (
    r.version === 1 &&
    maybeString(r.terminal_id) &&
    maybeString(r.workspace) &&
    maybeString(r.tab) &&
    maybeInt(r.wrapper_pid) &&
    maybeNumber(r.wrapper_start) &&
    maybeInt(r.pgid) &&
    maybeNumber(r.pgid_start) &&
    maybeInt(r.timeout_ms) &&
    maybeInt(r.idle_timeout_ms) &&
    maybeString(r.ticket) &&
    maybeString(r.item) &&
    maybeString(r.reservation)
  );
}
