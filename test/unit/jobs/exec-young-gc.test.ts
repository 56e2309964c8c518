// A warm supervisor empties its young generation before it waits for a claim
// (jobs/supervisor/exec-young-gc.ts), so that no scavenge of its start-up's garbage falls inside a
// job. Heard here as V8 reports it: a minor collection in the perf_hooks `gc` entries, during the
// call; and the allocation stops at its bound.

import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { expect, test } from 'vitest';
import { collectYoungGeneration } from '../../../service/jobs/supervisor/exec-young-gc.js';

function minorCollections(entries: PerformanceEntry[]): number {
  return entries.filter(
    (entry) =>
      (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ===
      constants.NODE_PERFORMANCE_GC_MINOR,
  ).length;
}

test('allocates until V8 collects the young generation, and says so', async () => {
  const seen: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => seen.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  try {
    expect(collectYoungGeneration()).toBe(true);
    // The observer hears of a collection in a later turn.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    observer.disconnect();
  }
  expect(minorCollections(seen)).toBeGreaterThanOrEqual(1);
});

test('stops at its bound without a collection to show for it', () => {
  expect(collectYoungGeneration(0)).toBe(false);
});
