import { describe, expect, test } from 'vitest';
import { expiredJobs, isExpiredJob, JOB_RETENTION_MS } from '../../../../service/core/jobs/job-expiry.js';

const NOW = 1_700_000_000_000;

describe('job expiry', () => {
  test('keeps an ended job for exactly 24 hours', () => {
    expect(JOB_RETENTION_MS).toBe(86_400_000);
    expect(isExpiredJob({ ended_ms: NOW - JOB_RETENTION_MS }, NOW)).toBe(false);
    expect(isExpiredJob({ ended_ms: NOW - JOB_RETENTION_MS - 1 }, NOW)).toBe(true);
  });

  test('never expires a job that has not ended', () => {
    expect(isExpiredJob({ ended_ms: null }, NOW + 365 * JOB_RETENTION_MS)).toBe(false);
  });

  test('a job that ended in the future by the clock is not expired', () => {
    expect(isExpiredJob({ ended_ms: NOW + 5_000 }, NOW)).toBe(false);
  });

  test('selects the expired records in their order', () => {
    const records = [
      { id: 'a', ended_ms: NOW - 2 * JOB_RETENTION_MS },
      { id: 'b', ended_ms: null },
      { id: 'c', ended_ms: NOW - 60_000 },
      { id: 'd', ended_ms: NOW - JOB_RETENTION_MS - 1 },
    ];
    expect(expiredJobs(records, NOW).map((record) => record.id)).toEqual(['a', 'd']);
  });
});
