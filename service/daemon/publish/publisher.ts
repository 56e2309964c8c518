// One publication of host.json and its samples.jsonl line. Only a failed measurement is fatal (the
// spec); a state file that cannot be read or written (a directory or FIFO in its place, a full disk,
// a read-only filesystem) goes into the snapshot's `errors` and is tried again next tick, so the
// service recovers by itself once the file or the disk is fixed. A host.json that cannot be written
// leaves the last good one in place and is reported on stderr. Every write first checks the service
// lock is still ours (`guard`): a service that lost it writes nothing more.

import { DogsledError, messageOf } from '../../core/common/errors.js';
import type { HostFacts } from '../../core/fleet/fleet-types.js';
import type { CpuTicks } from '../../core/placement/cpu-busy.js';
import type { HostSnapshot } from '../../core/placement/host-types.js';
import { liveReservations } from '../../core/placement/reservations.js';
import { readReservations } from '../../hosts/local-facts.js';
import type { HostProbe } from '../../probe/index.js';
import { HostSnapshotCheck } from '../../state/checks/host-snapshot-check.js';
import { readState, updateState, writeState } from '../../state/engine/store.js';
import { HostSnapshotSchema, PlacementsSchema } from '../../state/schemas/host-schemas.js';
import type { ServiceIO } from '../serve.js';
import { JobSummaries } from './job-summaries.js';
import { appendSample } from './samples-log.js';
import { composeSnapshot, sampleOf } from './snapshot-build.js';
import { rememberWritten } from './snapshot-reread.js';

export interface Publication {
  snapshot: HostSnapshot;
  /** Why host.json was not replaced this time; the previous one stays. */
  writeError?: DogsledError;
}

export class Publisher {
  private previousTicks: CpuTicks | null = null;
  private readonly jobs: JobSummaries;
  /** The last count read, used while placements.json cannot be read. */
  private reservations = 0;
  /** A samples.jsonl failure, reported in the next snapshot (the line is appended after host.json). */
  private carried: string[] = [];
  private hostError: string | undefined;

  constructor(
    private readonly deps: ServiceIO,
    private readonly liveness: HostSnapshot['liveness'],
    /** Throws unless the service lock is still ours; runs before every write. */
    private readonly guard: () => Promise<void>,
    /** The current failures of the service's workers (a watchdog.json that cannot be read...). */
    private readonly laneErrors: () => string[] = () => [],
    /** What the host is, once read (null before). */
    private readonly facts: () => HostFacts | null = () => null,
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
    try {
      const previous = await readState(paths.host, HostSnapshotSchema, this.deps);
      if (previous?.probe.agent_panes) agents.restore(previous.probe.agent_panes);
    } catch (error) {
      this.deps.warn(`dogsled serve: ${messageOf(error)}; agent clocks start afresh`);
    }
  }

  async publish(): Promise<Publication> {
    const { deps } = this;
    const reading = await this.measure();
    const errors: string[] = [...this.carried];
    const reservations = await this.liveReservationCount(errors);
    const agents = deps.agents ? await deps.agents.tick() : { panes: [], errors: [], terminal: undefined };
    const jobs = await this.jobs.read();
    const snapshot = composeSnapshot({
      reading,
      previousTicks: this.previousTicks,
      identity: deps.identity,
      liveness: this.liveness,
      reservations,
      agentPanes: agents.panes,
      terminal: agents.terminal,
      jobs,
      errors: [...agents.errors, ...errors, ...this.laneErrors()],
      policy: deps.config,
      now: deps.now(),
      facts: this.facts(),
    });
    this.previousTicks = reading.cpu_ticks;
    const writeError = await this.writeSnapshot(snapshot);
    try {
      await appendSample(deps.paths.samples, sampleOf(snapshot), snapshot.sample_ms, this.guard);
      this.carried = [];
    } catch (error) {
      this.carried = [messageOf(error)];
    }
    return writeError ? { snapshot, writeError } : { snapshot };
  }

  private async writeSnapshot(snapshot: HostSnapshot): Promise<DogsledError | undefined> {
    const { deps } = this;
    try {
      // Checked by hand (held to HostSnapshotSchema by hand-checks.test.ts): zod's copy of fifty
      // agent panes every tick was a good part of the service's garbage.
      const text = await writeState(deps.paths.host, HostSnapshotCheck, snapshot, { guard: this.guard });
      rememberWritten(deps.paths.host, text);
    } catch (error) {
      const failure =
        error instanceof DogsledError ? error : new DogsledError(messageOf(error), { cause: error });
      if (failure.message !== this.hostError) {
        deps.warn(`dogsled serve: ${failure.message}; the last snapshot stays, retrying every tick`);
      }
      this.hostError = failure.message;
      return failure;
    }
    if (this.hostError !== undefined) deps.warn(`dogsled serve: ${deps.paths.host} written again`);
    this.hostError = undefined;
    return undefined;
  }

  private async measure(): Promise<HostProbe> {
    try {
      return await this.deps.probe();
    } catch (error) {
      throw new DogsledError(`serve: measurement failed: ${messageOf(error)}`, { cause: error });
    }
  }

  /** Counts live reservations and drops expired ones from placements.json while at it. */
  private async liveReservationCount(errors: string[]): Promise<number> {
    const { deps } = this;
    try {
      const all = await readReservations(deps);
      const live = liveReservations(all, deps.now());
      this.reservations = live.length;
      if (live.length === all.length) return live.length;
      return await updateState(deps.paths.placements, PlacementsSchema, deps, (current) => {
        if (!current) return { result: 0 };
        const kept = liveReservations(current.reservations, deps.now());
        return { result: kept.length, next: { ...current, reservations: kept } };
      });
    } catch (error) {
      errors.push(messageOf(error));
      return this.reservations;
    }
  }
}
