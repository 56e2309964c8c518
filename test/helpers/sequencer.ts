// The order test files start in. The suite's wall time on a few cores is set by its tail: vitest's
// own order runs the projects one after the other (fast, then slow), so the longest files (SSH
// peers, whole agent lives) started last and ran on alone. Longest first instead: by the durations
// of the last run when vitest has them, and on a clean clone (CI) by kind, end-to-end first.

import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Rough seconds a file of each kind takes, for files the last run did not time. */
function guess(file: string, project: string): number {
  if (file.startsWith('test/e2e/')) return 60;
  if (project === 'slow') return 30;
  if (file.startsWith('test/integration/')) return 10;
  return 1;
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const rank = new Map<TestSpecification, { failed: boolean; seconds: number }>();
    for (const spec of files) {
      const file = relative(config.root, spec.moduleId);
      const key = `${spec.project.name}:${file}`;
      const last = cache.getFileTestResults(key);
      // Size breaks ties among guesses: a longer file of the same kind tends to run longer.
      const size = cache.getFileStats(key)?.size ?? 0;
      rank.set(spec, {
        failed: last?.failed === true,
        seconds: last ? last.duration / 1000 : guess(file, spec.project.name) + size / 1e6,
      });
    }
    const order = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    return [...files].sort((a, b) => {
      const ra = rank.get(a);
      const rb = rank.get(b);
      if (order(a) !== order(b)) return order(a) - order(b);
      if (!ra || !rb) return 0;
      if (ra.failed !== rb.failed) return ra.failed ? -1 : 1;
      return rb.seconds - ra.seconds;
    });
  }
}
