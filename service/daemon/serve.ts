// `dogsled serve`: holds the host's service lock and publishes host.json every interval. A failed
// measurement stops the service with an error and leaves the last complete snapshot in place;
// losing the lock stops it too, since another process now speaks for this host.

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuTicks } from '../core/cpu-busy.js';
import type { Policy } from '../core/headroom.js';
import { liveReservations } from '../core/reservations.js';
import { DogsledError, messageOf } from '../errors.js';
import { readReservations } from '../hosts/local.js';
import type { HostProbe } from '../probe/index.js';
import { ensureStateDir, type StatePaths } from '../state/paths.js';
import { type HostSnapshot, HostSnapshotSchema, PlacementsSchema } from '../state/schemas.js';
import { acquireServiceLock } from '../state/service-lock.js';
import { readState, updateState, writeState } from '../state/store.js';
import { span } from '../timing.js';
import { startWorkWorkers } from './admission.js';
import type { AgentLane } from './agent-lane.js';
import { JobSummaries } from './job-summaries.js';
import { appendSample } from './samples-log.js';
import { composeSnapshot, sampleOf } from './snapshot.js';

/** The second tick comes soon after the first, so a fresh service has a CPU sample within a second. */
export const FIRST_SAMPLE_MS = 1_000;

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
  const lock = await acquireServiceLock(
    deps.paths,
    { pid: deps.pid, hostname: deps.identity.hostname, started_ms, version: deps.version },
    {
      onLost: (error) => {
        lost = error;
        stopper.abort();
      },
    },
  );
  options.onStarted?.();
  // Admission and completion run beside publication, each at its own pace: a slow launch never
  // delays host.json. They stop before the lock is released, so no late write outlives the service.
  const work = options.once
    ? undefined
    : startWorkWorkers({ ...deps, started_ms, paceMs: options.intervalMs }, stop);
  const publisher = new Publisher(deps, {
    pid: deps.pid,
    started_ms,
    interval_ms: options.intervalMs,
    version: deps.version,
  });
  try {
    await publisher.restore();
    if (options.once) {
      await publisher.prime();
      if (await pause(FIRST_SAMPLE_MS, stop)) await publisher.publish();
    } else {
      let delay = 0;
      let ticks = 0;
      while (await pause(delay, stop)) {
        const began = Date.now();
        const tickStart = performance.now();
        await publisher.publish();
        span('tick', performance.now() - tickStart);
        ticks += 1;
        const wanted = ticks === 1 ? Math.min(FIRST_SAMPLE_MS, options.intervalMs) : options.intervalMs;
        delay = Math.max(0, wanted - (Date.now() - began));
      }
    }
  } finally {
    deps.agents?.close();
    await work?.stop();
    await lock.release();
  }
  if (lost) throw lost;
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

class Publisher {
  private previousTicks: CpuTicks | null = null;
  private readonly jobs: JobSummaries;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly liveness: HostSnapshot['liveness'],
  ) {
    this.jobs = new JobSummaries(deps.paths);
  }

  /** Takes a first reading without publishing, so the next publication has a CPU sample. */
  async prime(): Promise<void> {
    this.previousTicks = (await this.measure()).cpu_ticks;
  }

  /** Carries agent clocks over from the snapshot a previous service run left behind. */
  async restore(): Promise<void> {
    const { agents, paths } = this.deps;
    if (!agents) return;
    const previous = await readState(paths.host, HostSnapshotSchema, this.deps);
    if (previous?.probe.agent_panes) agents.restore(previous.probe.agent_panes);
  }

  async publish(): Promise<HostSnapshot> {
    const { deps } = this;
    const reading = await this.measure();
    const reservations = await this.liveReservationCount();
    const agents = deps.agents ? await deps.agents.tick() : { panes: [], errors: [] };
    const jobs = await this.jobs.read();
    const snapshot = composeSnapshot({
      reading,
      previousTicks: this.previousTicks,
      identity: deps.identity,
      liveness: this.liveness,
      reservations,
      agentPanes: agents.panes,
      jobs,
      errors: agents.errors,
      policy: deps.policy,
      now: deps.now(),
    });
    this.previousTicks = reading.cpu_ticks;
    await writeState(deps.paths.host, HostSnapshotSchema, snapshot);
    await appendSample(deps.paths.samples, sampleOf(snapshot), snapshot.sample_ms);
    return snapshot;
  }

  private async measure(): Promise<HostProbe> {
    try {
      return await this.deps.probe();
    } catch (error) {
      throw new DogsledError(`serve: measurement failed: ${messageOf(error)}`, { cause: error });
    }
  }

  /** Counts live reservations and drops expired ones from placements.json while at it. */
  private async liveReservationCount(): Promise<number> {
    const { deps } = this;
    const now = deps.now();
    const all = await readReservations(deps);
    const live = liveReservations(all, now);
    if (live.length === all.length) return live.length;
    return updateState(deps.paths.placements, PlacementsSchema, deps, (current) => {
      if (!current) return { result: 0 };
      const kept = liveReservations(current.reservations, deps.now());
      return { result: kept.length, next: { ...current, reservations: kept } };
    });
  }
}
