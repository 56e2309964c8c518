// The prune entries and doctor findings a sweep pass keeps share their fields with `prune --json`
// and `doctor --json` (one source, state/sweep-schemas.ts), yet each keeps its own rules: the pass
// in sweeps.jsonl reads entries of kinds a newer build added and keeps their newer fields, while the
// printed report holds its kinds to the enum.
import { describe, expect, it } from 'vitest';
import { DoctorReportSchema, PruneReportSchema } from '../../../service/cleanup/doctor-report.js';
import { SweepPassSchema } from '../../../service/state/schemas/sweep-schemas.js';

const result = {
  kind: 'worktree',
  path: '/r/wt',
  branch: 'feat',
  branch_deleted: true,
  panes: ['w1:p1'],
  already_removed: false,
  detail: 'removed',
};
const skip = { kind: 'pane', path: 'w1:p2', branch: null, reason: 'busy now' };
const failure = { kind: 'branch', path: '/r', branch: 'old', error: 'moved' };
const landed = { repository: '/r', checkout: '/r/wt', ref: 'main', dirty: 2, paths: ['a', 'b'] };
const unlinked = { repository: '/r', path: '/r/gone', reason: 'not listed by git' };

function pass(extra: Record<string, unknown> = {}) {
  return {
    version: 1,
    ts_ms: 2,
    started_ms: 1,
    finished_ms: 2,
    request_ms: null,
    results: [result],
    skipped: [skip],
    failures: [failure],
    warnings: [],
    landed_dirty: [landed],
    unlinked: [unlinked],
    error: null,
    ...extra,
  };
}

describe('sweep pass and cleanup reports', () => {
  it('read the same entries and findings', () => {
    expect(SweepPassSchema.parse(pass())).toMatchObject({
      results: [result],
      skipped: [skip],
      failures: [failure],
      landed_dirty: [landed],
      unlinked: [unlinked],
    });
    const report = { results: [result], skipped: [skip], failures: [failure] };
    expect(PruneReportSchema.parse(report)).toEqual(report);
  });

  it('keeps a newer kind and newer fields in a pass, and refuses that kind in a prune report', () => {
    const newer = { ...result, kind: 'container', image: 'x' };
    const parsed = SweepPassSchema.parse(
      pass({ results: [newer], unlinked: [{ ...unlinked, since_ms: 1 }] }),
    );
    expect(parsed.results).toEqual([newer]);
    expect(parsed.unlinked).toEqual([{ ...unlinked, since_ms: 1 }]);
    expect(PruneReportSchema.safeParse({ results: [newer], skipped: [], failures: [] }).success).toBe(false);
  });

  it('refuses an entry or finding that lacks a field, in both', () => {
    const { detail: _, ...noDetail } = result;
    expect(SweepPassSchema.safeParse(pass({ results: [noDetail] })).success).toBe(false);
    expect(PruneReportSchema.safeParse({ results: [noDetail], skipped: [], failures: [] }).success).toBe(
      false,
    );
    const { dirty: __, ...noDirty } = landed;
    expect(SweepPassSchema.safeParse(pass({ landed_dirty: [noDirty] })).success).toBe(false);
    expect(DoctorReportSchema.shape.landed_dirty.safeParse([noDirty]).success).toBe(false);
    expect(DoctorReportSchema.shape.unlinked.safeParse([unlinked]).success).toBe(true);
  });
});
