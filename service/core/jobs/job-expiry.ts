// Job retention: an ended job's record and log expire 24 hours after it ended (spec, "Cleanup").
// A job that has not ended never expires, however old: its pane or wrapper may still be writing.

/** How long an ended job's record and log are kept. */
export const JOB_RETENTION_MS = 24 * 3_600_000;

export interface EndedLike {
  ended_ms: number | null;
}

/** True when the job ended more than JOB_RETENTION_MS before `now`. */
export function isExpiredJob(record: EndedLike, now: number): boolean {
  return record.ended_ms !== null && now - record.ended_ms > JOB_RETENTION_MS;
}

/** The records that prune may remove, in their given order. */
export function expiredJobs<T extends EndedLike>(records: readonly T[], now: number): T[] {
  return records.filter((record) => isExpiredJob(record, now));
}
