// A job's summary fields (JobSummary: the record's fields host.json lists) judged by hand as
// JobRecordSchema judges them, with no data built: the lean `host snapshot` checks host.json's jobs
// with it, and isJobRecord (job-record-check.ts) checks a whole record's shared fields with it.
// A file of its own so the lean snapshot loads no hand-check builders with it.

import {
  atLeastZero,
  isInt,
  isIntOrNull,
  isRecord,
  isStringOrNull,
  nonEmpty,
} from '../../core/common/shape.js';
import type { JobSummary } from '../../core/jobs/job-types.js';

const maybeAtLeastZero = (v: unknown) => v === undefined || v === null || atLeastZero(v);

export function isJobSummary(value: unknown): value is JobSummary {
  if (!isRecord(value)) return false;
  const job = value as Record<string, unknown>;
  return (
    nonEmpty(job.id) &&
    isCommand(job.command) &&
    typeof job.cwd === 'string' &&
    typeof job.host === 'string' &&
    isStringOrNull(job.owner) &&
    isStringOrNull(job.pane) &&
    isInt(job.created_ms) &&
    isIntOrNull(job.started_ms) &&
    isIntOrNull(job.ended_ms) &&
    isIntOrNull(job.exit_code) &&
    isStringOrNull(job.signal) &&
    isStringOrNull(job.reason) &&
    maybeAtLeastZero(job.peak_rss_bytes) &&
    maybeAtLeastZero(job.cpu_ms)
  );
}

function isCommand(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const word of value) if (typeof word !== 'string') return false;
  return true;
}
