// Retention of samples.jsonl: no line older than seven days survives an append. Trimming rewrites
// the file, so it runs only when the oldest line has expired, and then cuts an hour deeper; that
// turns a rewrite per tick into one per hour while never keeping a line past the seven days.

export const SAMPLE_RETENTION_MS = 7 * 24 * 3_600_000;
export const SAMPLE_TRIM_SLACK_MS = 3_600_000;

/** True when the oldest kept line (or an unreadable first line, null) calls for a rewrite. */
export function needsTrim(oldestTsMs: number | null, now: number): boolean {
  return oldestTsMs === null || oldestTsMs < now - SAMPLE_RETENTION_MS;
}

/** Lines at or after this time are kept by a trim. */
export function trimCutoff(now: number): number {
  return now - SAMPLE_RETENTION_MS + SAMPLE_TRIM_SLACK_MS;
}
