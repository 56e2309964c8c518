// DOGSLED_TIMING=1 prints how long each start-up stage took, measured from process start, to
// stderr. For finding what a hot command spends its time on; silent otherwise. It imports nothing:
// every command loads it before anything else, so a dependency would be a module more per start.

const enabled = process.env.DOGSLED_TIMING === '1';

export function mark(stage: string): void {
  // process.uptime() is performance.now() without loading node:perf_hooks (service/time/timers.ts).
  if (enabled) process.stderr.write(`timing ${(process.uptime() * 1000).toFixed(1)}ms ${stage}\n`);
}

/** One line per measured span (a service tick), for benchmarks: `timing span <name> <ms>ms`. */
export function span(name: string, ms: number): void {
  if (enabled) process.stderr.write(`timing span ${name} ${ms.toFixed(1)}ms\n`);
}

/** The process's CPU so far (user + system, ms) with timing on, for a span of CPU time; 0 off. */
export function cpuMs(): number {
  if (!enabled) return 0;
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/**
 * A long-running hot command (the sidebar) says its start-up is over: main.ts writes the bundle's
 * code cache then, since such a command seldom exits 0 (a closed pane ends it with a signal).
 */
export const STARTED_EVENT = 'dogsled:started';

export function startedUp(): void {
  process.emit(STARTED_EVENT as 'exit', 0);
}
