// One real `serve` for a whole test file of the agent tests (agentSuite({ share: 'state' })): a
// service start is several Node processes (serve, its warm supervisor, its host-facts child) and
// a wait for its first eligible snapshot, so a file starts it once and its tests tell their records
// apart by name, id or pane. It measures a fake /proc of idle cores whose counters a ticker moves,
// with a config where each reservation takes 1.5 cores and 2 must stay free: `cores: 8` leaves room
// for exactly 5 reservations (the queue tests fill it), more cores room for a file's many children.

import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startCli } from '../../helpers/cli.js';
import type { Repo } from '../../helpers/git-scenarios.js';
import { advanceStat, writeProc } from '../../helpers/proc-fixture.js';
import { waitFor } from '../../helpers/wait.js';
import { killAll } from '../jobs/job-queue-fixtures.js';
import type { AgentSuite } from './agent-fixtures.js';

type Child = ReturnType<typeof startCli>;

export interface SharedServe {
  /** serve's environment: the fake /proc and Herdr, no caller pane of its own. */
  env: NodeJS.ProcessEnv;
  /** The running serve. */
  child: Child;
  /**
   * Stops the running serve (SIGKILL; a frozen one too) and starts another with `extra` in its
   * environment; resolves once it published an eligible host.
   */
  restart(extra?: NodeJS.ProcessEnv): Promise<Child>;
}

export function sharedServe(
  suite: AgentSuite,
  host: { cores: number; ttlMs: number; env?: NodeJS.ProcessEnv; intervalS?: number },
): SharedServe {
  const running: Child[] = [];
  let stopped = false;
  let ticking: Promise<void> = Promise.resolve();
  const served = {} as SharedServe;

  let current: NodeJS.ProcessEnv = {};
  const start = async (extra: NodeJS.ProcessEnv = {}): Promise<Child> => {
    const child = startCli(['serve', '--interval', String(host.intervalS ?? 0.3)], {
      ...served.env,
      ...extra,
    });
    running.push(child);
    served.child = child;
    current = extra;
    // Its own snapshot, not one a serve before it left behind.
    await waitFor(
      'an eligible host published by the new serve',
      async () => {
        const snapshot = JSON.parse(await readFile(join(suite.box.state, 'host.json'), 'utf8'));
        return (snapshot.liveness?.pid === child.pid && snapshot.headroom.eligible === true) || undefined;
      },
      { timeoutMs: 15_000 },
    );
    return child;
  };

  served.restart = async (extra = {}) => {
    for (const child of running) if (child.exitCode === null) child.kill('SIGCONT');
    await killAll(running);
    return start(extra);
  };

  beforeAll(async () => {
    const box = suite.box;
    await writeFile(
      box.configPath,
      `reservation_load = 1.5\nreservation_ttl_ms = ${host.ttlMs}\nmemory_reserve_bytes = 0\ndisk_free_min_percent = 0\n`,
    );
    const proc = join(box.root, 'fakeroot');
    let total = 10_000;
    await writeProc(proc, { cores: host.cores, total, idle: total });
    // An idle kernel: the counters move, all of it idle, so each of the service's samples (0.3 s
    // apart) sees 0% busy. One write at a time (they share a temp name), until the file ends.
    ticking = (async () => {
      while (!stopped) {
        total += 100;
        await advanceStat(proc, { cores: host.cores, total, idle: total }).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const { HERDR_PANE_ID: _pane, ...env } = suite.env;
    served.env = {
      ...env,
      DOGSLED_TEST: '1',
      DOGSLED_TEST_PROBE_ROOT: proc,
      DOGSLED_TEST_LAUNCH_BACKOFF_SCALE: '0.01',
      // What the host is (systeminformation in a `dogsled host facts` child, a Node start and a dozen
      // commands per serve) is no concern of these files: the child's deadline passes at once, and
      // snapshots say why they carry no facts.
      DOGSLED_TEST_FACTS_TIMEOUT_MS: '1',
      ...host.env,
    };
    await start();
  }, 60_000);

  // A test that started a serve of its own (a knob in its environment) leaves it to the next test,
  // which gets the file's plain serve back before it begins.
  beforeEach(async () => {
    if (Object.keys(current).length > 0 || served.child.exitCode !== null || served.child.signalCode !== null)
      await served.restart();
  }, 60_000);

  afterAll(async () => {
    stopped = true;
    for (const child of running) if (child.exitCode === null) child.kill('SIGCONT');
    await killAll(running);
    await ticking;
  });
  return served;
}

/** Waits until `child` has exited (a killed serve), so the next one finds the lock free. */
export function gone(child: Child): Promise<true> {
  return waitFor(
    'the serve to exit',
    () => child.exitCode !== null || child.signalCode !== null || undefined,
  );
}

/**
 * Removes a test's repository at its end (from an afterEach), for a file whose tests share a serve.
 * Its branch watch looks again at every kept branch of every item every 5 s, about seven git
 * processes each (worktree list, for-each-ref, two rev-lists, diff-tree, status), for as long as the
 * repository exists: gone, the branch is observed landed with no git at all, so an earlier test's
 * children cost the later tests nothing. A git the serve runs in it meanwhile can add a file as the
 * directory is emptied (ENOTEMPTY): tried again.
 */
export function removeRepo(repo: Repo): Promise<void> {
  return rm(repo.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
