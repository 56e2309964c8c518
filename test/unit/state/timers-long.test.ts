// Long-safe timers: a duration beyond setTimeout's 2^31 - 1 ms does not fire at once, a chained
// timer fires only once its whole duration has passed on the monotonic clock, and clear() stops it.
// Checked by state after short real waits, never by how fast anything ran.

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { longTimeout, MAX_TIMER_MS, timeoutSignal } from '../../../service/time/timers.js';

const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(warning.name);

beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});

afterEach(() => {
  process.off('warning', onWarning);
});

describe('long timers', () => {
  it('a signal for longer than setTimeout can hold has not aborted after a real wait', async () => {
    const signals = [MAX_TIMER_MS + 1, 600 * 3_600_000, 365 * 86_400_000].map((ms) => timeoutSignal(ms));
    await sleep(300);
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false, false]);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });

  it('a chained timer fires once, never before its whole duration has passed', async () => {
    const start = performance.now();
    const fired: number[] = [];
    await new Promise<void>((resolve) => {
      longTimeout(
        200,
        () => {
          fired.push(performance.now() - start);
          resolve();
        },
        { stepMs: 30 },
      );
    });
    await sleep(100);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(200);
  });

  it('a signal built on a chain aborts with a TimeoutError', async () => {
    const signal = timeoutSignal(60, { stepMs: 20 });
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('clear() stops a chained timer between its steps', async () => {
    const start = performance.now();
    let fired = false;
    const timer = longTimeout(
      300,
      () => {
        fired = true;
      },
      { stepMs: 20 },
    );
    await sleep(60);
    const clearedAt = performance.now() - start;
    timer.clear();
    await sleep(400);
    // Only meaningful when the clear came before the due time, which a loaded machine may miss.
    if (clearedAt < 300) expect(fired).toBe(false);
  });
});
