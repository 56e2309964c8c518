// oldestFirst: the order ps, the board and the service list jobs in. A tie on created_ms is broken by
// the id's character codes, which for every id newId makes (j_ and twelve of a-z, 2-7) is the order
// localeCompare gave, in any locale that sorts digits before letters, without building ICU's collator.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oldestFirst } from '../../../../service/core/jobs/job-status.js';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const jobId = () => `j_${[...randomBytes(12)].map((b) => ALPHABET[b & 31]).join('')}`;

describe('oldestFirst', () => {
  it('lists the oldest first and breaks a tie by the id, as localeCompare did for job ids', () => {
    const jobs = Array.from({ length: 400 }, (_, i) => ({ id: jobId(), created_ms: 1_000 + (i % 7) }));
    const ours = [...jobs].sort(oldestFirst);
    const before = [...jobs].sort((a, b) => a.created_ms - b.created_ms || a.id.localeCompare(b.id, 'en'));
    expect(ours.map((j) => j.id)).toEqual(before.map((j) => j.id));
    for (let i = 1; i < ours.length; i++) expect(oldestFirst(ours[i - 1]!, ours[i]!)).toBeLessThanOrEqual(0);
  });

  it('gives 0 only for the same start and id, and the same answer either way round', () => {
    const a = { id: 'j_aaaa', created_ms: 5 };
    const b = { id: 'j_aaab', created_ms: 5 };
    expect(oldestFirst(a, { ...a })).toBe(0);
    expect(oldestFirst(a, b)).toBeLessThan(0);
    expect(oldestFirst(b, a)).toBeGreaterThan(0);
    expect(oldestFirst({ id: 'j_z', created_ms: 1 }, { id: 'j_a', created_ms: 2 })).toBeLessThan(0);
  });
});
