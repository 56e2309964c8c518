// `dogsled serve`: holds the host's service lock and publishes host.json every interval. A failed
// measurement stops the service with an error and leaves the last complete snapshot in place; a
// state file that cannot be read or written does not (publisher.ts). Losing the lock stops it too,
// since another process now speaks for this host. `--once` publishes, then runs each action lane
// once while it still holds the lock, so tickets pending before it are admitted by it.

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Policy } from '../core/headroom.js';
import { DogsledError, messageOf } from '../errors.js';
import type { HostProbe } from '../probe/index.js';
import { ensureStateDir, type StatePaths } from '../state/paths.js';
import { acquireServiceLock } from '../state/service-lock.js';
import { sweepOrphanTemps } from '../state/temp-sweep.js';
import { span } from '../timing.js';
import { AdmissionWorker, startWorkWorkers } from './admission.js';
import type { AgentLane } from './agent-lane.js';
import { CompletionWorker } from './completion.js';
import { Publisher } from './publisher.js';
import { type QuotaWorkerDeps, startQuotaWorker } from './quota-worker.js';
import { startTodosWorker, TodosWorker } from './todos-worker.js';
import type { WorkerDeps } from './work-deps.js';

/** The second tick comes soon after the first, so a fresh service has a CPU sample within a second. */
export const FIRST_SAMPLE_MS = 1_000;
/** Orphaned temp files are looked for at start and then this often. */
const SWEEP_EVERY_MS = 60_000;

export interface ServiceDeps {
  paths: StatePaths;
  policy: Policy;
  now: () => number;
  probe: () => Promise<HostProbe>;
  identity: { id: string; label: string; hostname: string };
  pid: number;
  version: string;
  warn: (line: string) => void;
  /** Herdr's agent panes; without it (tests of the measurement alone) the host reports none. */
  agents?: AgentLane;
  /** Quota collection and pushes (quota-worker.ts); without it the service does neither. */
  quota?: Omit<QuotaWorkerDeps, 'paths' | 'now' | 'warn' | 'hostname'>;
}

export interface ServeOptions {
  intervalMs: number;
  once: boolean;
  signal: AbortSignal;
  /** Called once the service lock is held, before the first measurement. */
  onStarted?: () => void;
}

export async function serve(deps: ServiceDeps, options: ServeOptions): Promise<void> {
  await ensureStateDir(deps.paths.dir);
  const started_ms = deps.now();
  let lost: DogsledError | undefined;
  const stopper = new AbortController();
  const stop = AbortSignal.any([options.signal, stopper.signal]);
  const onLost = (error: DogsledError): void => {
    lost ??= error;
    stopper.abort();
  };
  const lock = await acquireServiceLock(
    deps.paths,
    { pid: deps.pid, hostname: deps.identity.hostname, started_ms, version: deps.version },
    { onLost },
  );
  const guard = async (): Promise<void> => {
    try {
      await lock.assertHeld();
    } catch (error) {
      onLost(error instanceof DogsledError ? error : new DogsledError(messageOf(error)));
      throw error;
    }
  };
  options.onStarted?.();
  const workerDeps: WorkerDeps = { ...deps, started_ms, paceMs: options.intervalMs };
  // Admission and completion run beside publication, each at its own pace: a slow launch never
  // delays host.json. They stop before the lock is released, so no late write outlives the service.
  const work = options.once ? undefined : startWorkWorkers(workerDeps, stop);
  const todos = options.once ? undefined : startTodosWorker(workerDeps, stop);
  const quota =
    options.once || !deps.quota
      ? undefined
      : startQuotaWorker({ ...pick(deps), ...deps.quota, hostname: deps.identity.hostname }, stop);
  const publisher = new Publisher(
    deps,
    { pid: deps.pid, started_ms, interval_ms: options.intervalMs, version: deps.version },
    guard,
  );
  const sweeper = new TempSweeper(deps);
  try {
    await publisher.restore();
    await sweeper.maybe();
    if (options.once) {
      await publisher.prime();
      if (await pause(FIRST_SAMPLE_MS, stop)) {
        const { writeError } = await publisher.publish();
        if (writeError && !lost) throw writeError;
        if (!lost) await runLanesOnce(workerDeps);
      }
    } else {
      let delay = 0;
      let ticks = 0;
      while (await pause(delay, stop)) {
        const began = Date.now();
        const tickStart = performance.now();
        await publisher.publish();
        await sweeper.maybe();
        span('tick', performance.now() - tickStart);
        ticks += 1;
        const wanted = ticks === 1 ? Math.min(FIRST_SAMPLE_MS, options.intervalMs) : options.intervalMs;
        delay = Math.max(0, wanted - (Date.now() - began));
      }
    }
  } finally {
    deps.agents?.close();
    await work?.stop();
    await todos?.stop();
    await quota?.stop();
    await lock.release();
  }
  if (lost) throw lost;
}

/**
 * `serve --once`: each action lane once, in the order a tick would poke them, while this run still
 * holds the service lock (its fresh snapshot is then a running service's). A lane that fails does
 * not stop the next; the failures end the command as one line.
 */
async function runLanesOnce(deps: WorkerDeps): Promise<void> {
  const lanes: Array<[string, () => Promise<unknown>]> = [
    ['admission', () => new AdmissionWorker(deps).pass()],
    ['completion', () => new CompletionWorker(deps).pass()],
    ['todos', () => new TodosWorker(deps).pass()],
  ];
  const failures: string[] = [];
  for (const [name, pass] of lanes) {
    try {
      await pass();
    } catch (error) {
      failures.push(`${name}: ${messageOf(error)}`);
    }
  }
  if (failures.length > 0) throw new DogsledError(`serve --once: ${failures.join('; ')}`);
}

/** What every worker shares with the service: its state paths, clock and warnings. */
function pick(deps: ServiceDeps): Pick<ServiceDeps, 'paths' | 'now' | 'warn'> {
  return { paths: deps.paths, now: deps.now, warn: deps.warn };
}

/** Resolves true after `ms`, false as soon as the service is asked to stop. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Runs the orphaned-temp sweep at most once a minute; a failed sweep is reported once. */
class TempSweeper {
  private last = -Infinity;
  private warned = '';

  constructor(private readonly deps: Pick<ServiceDeps, 'paths' | 'warn'>) {}

  async maybe(): Promise<void> {
    const now = performance.now();
    if (now - this.last < SWEEP_EVERY_MS) return;
    this.last = now;
    try {
      await sweepOrphanTemps(this.deps.paths);
    } catch (error) {
      const message = messageOf(error);
      if (message !== this.warned) this.deps.warn(`dogsled serve: temp sweep: ${message}`);
      this.warned = message;
    }
  }
}
