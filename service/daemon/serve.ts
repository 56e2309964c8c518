// `dogsled serve`: holds the host's service lock and publishes host.json every interval. A failed
// measurement stops the service with an error and leaves the last complete snapshot in place; a
// state file that cannot be read or written does not (publisher.ts). Losing the lock stops it too,
// since another process now speaks for this host. `--once` publishes, then runs each action lane
// once while it still holds the lock, so tickets pending before it are admitted by it.

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DogsledError, messageOf } from '../core/common/errors.js';
import type { HostFacts } from '../core/fleet/fleet-types.js';
import { peerTransport } from '../hosts/peer-verb.js';
import type { HostProbe } from '../probe/index.js';
import { sweepOrphanTemps } from '../state/engine/temp-sweep.js';
import type { HostIO } from '../state/io.js';
import { type ConfigLocation, ensureStateDir } from '../state/paths.js';
import { acquireServiceLock } from '../state/records/service-lock.js';
import { span } from '../time/timing.js';
import { SshPool } from '../transport/pool.js';
import { type Transport, UnreachableError } from '../transport/types.js';
import type { AgentLane } from './agents/agents-worker.js';
import { OrphanLane, orphanSource } from './agents/orphans-pass.js';
import { startTodosWorker, TodosWorker } from './agents/todos-worker.js';
import { startWatchdogWorker, type WatchdogIO, WatchdogWorker } from './agents/watchdog-worker.js';
import { watchConfig } from './config-watch.js';
import { startPeerReadServer } from './peer-read-server.js';
import { Publisher } from './publish/publisher.js';
import { AdmissionWorker, startWorkWorkers } from './queue/admission-worker.js';
import { CompletionWorker } from './queue/completion-worker.js';
import { type QuotaWorkerIO, startQuotaWorker } from './quota-worker.js';
import { type SweepIO, SweepWorker, startSweepWorker } from './sweep-worker.js';
import { startWarmKeeper, type WarmKeeperIO } from './warm-worker.js';
import type { WorkerIO } from './worker-io.js';

/** The second tick comes soon after the first, so a fresh service has a CPU sample within a second. */
export const FIRST_SAMPLE_MS = 1_000;
/** Orphaned temp files are looked for at start and then this often. */
const SWEEP_EVERY_MS = 60_000;

export interface ServiceIO extends HostIO {
  probe: () => Promise<HostProbe>;
  identity: { id: string; label: string; hostname: string };
  pid: number;
  version: string;
  /** Herdr's agent panes; without it (tests of the measurement alone) the host reports none. */
  agents?: AgentLane;
  /** The service's own directory (its checkout is never swept); default this process's. */
  cwd?: string;
  /** Quota collection and pushes (quota-worker.ts); without it the service does neither. */
  quota?: Pick<QuotaWorkerIO, 'managementUrl' | 'platform' | 'peers' | 'transport'>;
  /** Keep a job supervisor warm for headless launches (warm-keeper.ts); without it, none. */
  warmSupervisor?: Pick<WarmKeeperIO, 'self'>;
  /** config.toml, followed while the service runs (config-watch.ts); without it, read once. */
  configFile?: ConfigLocation;
  /** What the host is, read once at start in the background (facts.ts); without it, none. */
  facts?: (signal: AbortSignal) => Promise<HostFacts>;
}

export interface ServeOptions {
  intervalMs: number;
  once: boolean;
  signal: AbortSignal;
  /** Called once the service lock is held, before the first measurement. */
  onStarted?: () => void;
}

export async function serve(io: ServiceIO, options: ServeOptions): Promise<void> {
  await ensureStateDir(io.paths.dir);
  const started_ms = io.now();
  let lost: DogsledError | undefined;
  const stopper = new AbortController();
  const stop = AbortSignal.any([options.signal, stopper.signal]);
  const onLost = (error: DogsledError): void => {
    lost ??= error;
    stopper.abort();
  };
  const lock = await acquireServiceLock(
    io.paths,
    { pid: io.pid, hostname: io.identity.hostname, started_ms, version: io.version },
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
  // Started first: a waiting `run` finds it as soon as the service runs.
  const warm =
    options.once || !io.warmSupervisor ? undefined : startWarmKeeper({ ...io, ...io.warmSupervisor }, stop);
  // One pooled ssh2 connection per peer for the whole run, opened on first use: the peers lane's
  // reads and admission's calls there share it; closed once every worker stopped. The stop ends
  // every call there at once, so a frozen peer cannot hold the shutdown.
  const pool = new SshPool({ env: io.env, signal: stop });
  // A worker's failure is published in host.json's errors until its next pass succeeds.
  const laneErrors = new Map<string, string>();
  const laneReport = (name: string) => (error: string | undefined) => {
    if (error === undefined) laneErrors.delete(name);
    else laneErrors.set(name, error);
  };
  // The fleet bus, when config.toml names one: its client is loaded only then. Its connection
  // carries the service's calls to the hosts met there, from the moment it is up.
  const bus =
    options.once || io.config.fleet.bus.length === 0
      ? undefined
      : import('./peers/bus-worker.js')
          .then(({ startBusWorker }) =>
            startBusWorker(
              { ...io, configPath: io.configFile?.path ?? 'config.toml', intervalMs: options.intervalMs },
              stop,
              laneReport('bus'),
            ),
          )
          .catch((error: unknown) => {
            // A host name that makes no host id, say: the service runs on, and says why it is off the bus.
            laneReport('bus')(messageOf(error));
            io.warn(`dogsled: warning: ${messageOf(error)}`);
            return undefined;
          });
  const busLink: Transport = {
    kind: 'bus',
    exec: async (target, argv, execOptions) => {
      const worker = await bus;
      if (worker === undefined) throw new UnreachableError(target.bus ?? target.host, 'bus down');
      return worker.transport.exec(target, argv, execOptions);
    },
    close: async () => {},
  };
  const workerIO: WorkerIO & { transport: SshPool } = {
    ...io,
    started_ms,
    paceMs: options.intervalMs,
    transport: pool,
    bus: busLink,
  };
  // Commands on this host read their peers over the same pool (peer-read.sock).
  const peerReads = options.once ? undefined : startPeerReadServer(io, pool, stop);
  // Admission and completion run beside publication, each at its own pace: a slow launch never
  // delays host.json. They stop before the lock is released, so no late write outlives the service.
  // The orphan check follows the finish worker in its lane and joins requested sweep passes.
  const orphans = new OrphanLane(workerIO);
  const work = options.once ? undefined : startWorkWorkers(workerIO, stop, () => orphans.paced());
  const todos = options.once ? undefined : startTodosWorker(workerIO, stop);
  // A changed config.toml or profile is the service's at once; one that no longer loads is said.
  const configWatch =
    options.once || !io.configFile
      ? undefined
      : watchConfig({ ...io, configFile: io.configFile }, stop, (lane, problem) => laneReport(lane)(problem));
  const watchdogIO = { ...workerIO, children: orphanSource(workerIO) };
  const watchdog = options.once ? undefined : startWatchdogWorker(watchdogIO, stop, laneReport('watchdog'));
  const sweepIO: SweepIO = {
    ...workerIO,
    cwd: io.cwd ?? process.cwd(),
    closeOrphans: () => orphans.pass({ record: false }),
  };
  const sweep = options.once ? undefined : startSweepWorker(sweepIO, stop, laneReport('sweep'));
  const quota =
    options.once || !io.quota
      ? undefined
      : startQuotaWorker(
          {
            paths: io.paths,
            now: io.now,
            warn: io.warn,
            env: io.env,
            // Pushes to peers ride the service's pool (or its bus connection, for a host met there)
            // like every other service call there; both are the service's to close, after every
            // worker stopped.
            transport: (): Transport => ({
              kind: pool.kind,
              exec: async (target, argv, execOptions) =>
                (await peerTransport(workerIO, target, pool)).transport.exec(target, argv, execOptions),
              close: async () => {},
            }),
            ...io.quota,
            hostname: io.identity.hostname,
          },
          stop,
        );
  // Not for --once: it publishes before a child could answer.
  let facts: HostFacts | null = null;
  const factsRead = options.once || !io.facts ? undefined : io.facts(stop).then((read) => (facts = read));
  const publisher = new Publisher(
    io,
    { pid: io.pid, started_ms, interval_ms: options.intervalMs, version: io.version },
    guard,
    () => [...laneErrors.values()],
    () => facts,
  );
  const sweeper = new TempSweeper(io);
  try {
    await publisher.restore();
    await sweeper.maybe();
    if (options.once) {
      await publisher.prime();
      if (await pause(FIRST_SAMPLE_MS, stop)) {
        const { writeError } = await publisher.publish();
        if (writeError && !lost) throw writeError;
        if (!lost) await runLanesOnce(sweepIO, watchdogIO, orphans);
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
    await configWatch?.close();
    io.agents?.close();
    await warm?.stop();
    await work?.stop();
    await todos?.stop();
    await watchdog?.stop();
    await sweep?.stop();
    await quota?.stop();
    await (await bus)?.stop();
    await factsRead;
    await (await peerReads)?.stop();
    await pool.close();
    await lock.release();
  }
  if (lost) throw lost;
}

/**
 * `serve --once`: each action lane once, in the order a tick would poke them, while this run still
 * holds the service lock (its fresh snapshot is then a running service's). A lane that fails does
 * not stop the next; the failures end the command as one line.
 */
async function runLanesOnce(io: SweepIO, watchdogIO: WatchdogIO, orphans: OrphanLane): Promise<void> {
  const lanes: Array<[string, () => Promise<unknown>]> = [
    ['admission', () => new AdmissionWorker(io).pass()],
    ['completion', () => new CompletionWorker(io).pass()],
    ['orphans', () => orphans.pass()],
    ['todos', () => new TodosWorker(io).pass()],
    ['watchdog', () => new WatchdogWorker(watchdogIO).pass()],
    ['sweep', () => new SweepWorker(io).pass()],
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

  constructor(private readonly io: Pick<ServiceIO, 'paths' | 'warn'>) {}

  async maybe(): Promise<void> {
    const now = performance.now();
    if (now - this.last < SWEEP_EVERY_MS) return;
    this.last = now;
    try {
      await sweepOrphanTemps(this.io.paths);
    } catch (error) {
      const message = messageOf(error);
      if (message !== this.warned) this.io.warn(`dogsled serve: temp sweep: ${message}`);
      this.warned = message;
    }
  }
}
