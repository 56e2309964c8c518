// A worker's pace (service/daemon/work-loop.ts) with real timers: a poke cuts the pause short, and
// a settled poke (the sweep's, sent by a Stop hook on its way out) starts the pass only after its
// settle time, with every poke in between counted as one.

import { describe, expect, it } from 'vitest';
import { runLoop } from '../../../service/daemon/work-loop.js';

/** A loop with a long pace whose passes are timed from the start; its poke is handed back. */
function loop(settleMs?: number) {
  const passes: number[] = [];
  const stopper = new AbortController();
  let poke: () => void = () => {
    throw new Error('no poke yet');
  };
  let passed: () => void = () => undefined;
  const started = performance.now();
  const done = runLoop({
    name: 'test',
    paceMs: 60_000,
    minGapMs: 10,
    signal: stopper.signal,
    warn: () => undefined,
    settleMs,
    onPoke: (p) => {
      poke = p;
    },
    pass: async () => {
      passes.push(performance.now() - started);
      passed();
    },
  });
  const nextPass = () => new Promise<void>((resolve) => (passed = resolve));
  const stop = () => {
    stopper.abort();
    return done;
  };
  return { passes, poke: () => poke(), nextPass, stop };
}

/** Resolves after the loop's first pause has begun (the first pass runs at start). */
const settleIn = () => new Promise((r) => setTimeout(r, 50));

describe('runLoop', () => {
  it('runs a pass at once on a poke when nothing settles it', async () => {
    const l = loop();
    await settleIn();
    const next = l.nextPass();
    l.poke();
    await next;
    expect(l.passes).toHaveLength(2);
    await l.stop();
  });

  it('starts a settled poke no sooner than its settle time, and counts a burst as one pass', async () => {
    const l = loop(400);
    await settleIn();
    const next = l.nextPass();
    const poked = performance.now();
    for (let i = 0; i < 20; i++) l.poke();
    await next;
    // Timers never fire early by more than the clock's rounding.
    expect(performance.now() - poked).toBeGreaterThanOrEqual(395);
    // Another second would have shown a second pass had the burst counted for more than one.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(l.passes).toHaveLength(2);
    await l.stop();
  });

  it('ends at once while a settled poke still waits (the settle is longer than the test may take)', async () => {
    const l = loop(60_000);
    await settleIn();
    l.poke();
    await l.stop();
    expect(l.passes).toHaveLength(1);
  });
});
