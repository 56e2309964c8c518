// DOGSLED_TIMING=1 prints how long each start-up stage took, measured from process start, to
// stderr. For finding what a hot command spends its time on; silent otherwise.

import { monotonicMs } from './timers.js';

const enabled = process.env.DOGSLED_TIMING === '1';

export function mark(stage: string): void {
  if (enabled) process.stderr.write(`timing ${monotonicMs().toFixed(1)}ms ${stage}\n`);
}

/** One line per measured span (a service tick), for benchmarks: `timing span <name> <ms>ms`. */
export function span(name: string, ms: number): void {
  if (enabled) process.stderr.write(`timing span ${name} ${ms.toFixed(1)}ms\n`);
}
