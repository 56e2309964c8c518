// Shared set-up of the `dogsled agent` tests: a private state dir that a held service lock and a
// fresh snapshot make placeable, a fake Herdr whose panes find the fake agents and this build's
// `dogsled` on PATH (so a child's own `dogsled done` runs for real), the caller's pane, and readers
// for what a launch left behind (launch records, items, Herdr's panes).

import { chmod, mkdir, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { Item } from '../../../service/core/agents/item-types.js';
import type { LaunchRecord } from '../../../service/core/agents/launch-types.js';
import type { Ticket } from '../../../service/core/placement/queue-types.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { ItemsSchema, QueueSchema } from '../../../service/state/schemas/queue-items-schemas.js';
import {
  FAKE_AGENTS_BIN,
  type LaunchRecord as FakeLaunch,
  readLaunches,
} from '../../fakes/agents/harness.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { CLI, type CliResult, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';

// biome-ignore lint/suspicious/noExplicitAny: replies of the fake are plain JSON, checked by the assertions
export type Json = any;

export interface AgentSuite {
  box: Sandbox;
  herdr: FakeHerdr;
  env: NodeJS.ProcessEnv;
  logDir: string;
  /** A plain directory outside any repository. */
  scratch: string;
  caller: { workspace: string; pane: string };
  lock: ServiceLock;
  /** The fake agents' launches logged before the test began (newLaunches leaves them out). */
  launchesBefore: Set<string>;
}

/** A `dogsled` on PATH that runs this build, for the children's own calls. */
async function dogsledShim(dir: string): Promise<string> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  const shim = join(bin, 'dogsled');
  await writeFile(shim, `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
  await chmod(shim, 0o755);
  return bin;
}

/**
 * `paneState`: the DOGSLED_STATE Herdr's panes inherit from its server (default the sandbox's own);
 * a decoy shows whether a child finds its launcher's state dir without it.
 *
 * `share` trades a fresh world per test for fewer processes (every fake Herdr is a Node start):
 * - unset: a sandbox, state dir and fake Herdr per test.
 * - `herdr`: one sandbox HOME and fake Herdr for the file; each test gets its own directory under
 *   the sandbox (`box.root`, with its state dir, scratch and config path), its own service lock and
 *   snapshot, an empty call log, and on its end the panes it made closed (its children end with
 *   them). Children find the test's state dir from their launch (its pane gets DOGSLED_STATE), so
 *   the panes' inherited one is a decoy. The fake agents' log dir is shared: read it through
 *   `newLaunches`/`waitForNewLaunch`.
 * - `state`: one sandbox, state dir and fake Herdr for the whole file, for a file that shares one
 *   `serve`: its tests tell their records apart by name, id or pane.
 */
export function agentSuite(
  options: { serviceLock?: boolean; paneState?: string; share?: 'herdr' | 'state' } = {},
): AgentSuite {
  const suite = {} as AgentSuite;
  const share = options.share;
  let fileBox: Sandbox | undefined;
  let bin = '';
  let tests = 0;
  let panesBefore = new Set<string>();

  const holdLock = async (box: Sandbox) => {
    // Without the lock, a real serve publishes the host: no fixture snapshot stands in for it.
    if (options.serviceLock === false) return;
    suite.lock = await holdServiceLock(box.state);
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 0 }));
  };

  const openHerdr = async () => {
    const box = await sandbox({ DOGSLED_TEST: '1', DOGSLED_TEST_LAUNCH_BACKOFF_SCALE: '0.01' });
    fileBox = box;
    suite.box = box;
    suite.logDir = join(box.root, 'agent-log');
    bin = await dogsledShim(box.root);
    const path = `${bin}:${FAKE_AGENTS_BIN}:${process.env.PATH ?? ''}`;
    const paneState =
      options.paneState !== undefined
        ? join(box.root, options.paneState)
        : share === 'herdr'
          ? join(box.root, 'herdr-pane-state')
          : box.state;
    suite.herdr = await startFakeHerdr({
      dir: join(box.root, 'herdr'),
      env: {
        HOME: box.home,
        PATH: path,
        FAKE_AGENT_LOG_DIR: suite.logDir,
        DOGSLED_STATE: paneState,
        DOGSLED_TEST: '1',
        // Children commit their work: a fixed identity, and no user or system git config.
        GIT_AUTHOR_NAME: 'Child',
        GIT_AUTHOR_EMAIL: 'child@example.com',
        GIT_COMMITTER_NAME: 'Child',
        GIT_COMMITTER_EMAIL: 'child@example.com',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
    });
    const created = (await ok(suite.herdr, 'workspace.create', { cwd: box.home })) as Json;
    suite.caller = { workspace: created.workspace.workspace_id, pane: created.root_pane.pane_id };
  };

  /** The test's view of the sandbox: `box` itself, or (share: herdr) a directory of its own in it. */
  const enter = async (box: Sandbox) => {
    suite.box = box;
    suite.scratch = join(box.root, 'scratch');
    await mkdir(suite.scratch, { recursive: true });
    suite.scratch = await realpath(suite.scratch);
    suite.env = {
      ...box.env,
      HERDR_SOCKET_PATH: suite.herdr.socketPath,
      HERDR_ENV: '1',
      HERDR_PANE_ID: suite.caller.pane,
      PATH: `${bin}:${suite.herdr.env.PATH}`,
    };
    await holdLock(box);
    suite.launchesBefore = new Set((await readLaunches(suite.logDir)).map(launchKey));
  };

  const closeHerdr = async () => {
    await suite.herdr?.stop();
    await suite.lock?.release();
    await fileBox?.cleanup();
  };

  if (share === undefined) {
    beforeEach(async () => {
      await openHerdr();
      await enter(suite.box);
    });
    afterEach(closeHerdr);
    return suite;
  }
  beforeAll(async () => {
    await openHerdr();
    if (share === 'state') await enter(suite.box);
  }, 60_000);
  afterAll(closeHerdr);
  if (share === 'herdr') {
    beforeEach(async () => {
      const shared = fileBox as Sandbox;
      const root = join(shared.root, `t${++tests}`);
      const state = join(root, 'state');
      await mkdir(root);
      await enter({
        ...shared,
        root,
        state,
        env: { ...shared.env, DOGSLED_STATE: state },
        cleanup: () => rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }),
      });
      await ok(suite.herdr, '_fake.calls.clear');
      panesBefore = new Set(await paneIds(suite.herdr));
    });
    afterEach(async () => {
      await suite.lock?.release();
      for (const pane of await paneIds(suite.herdr)) {
        if (!panesBefore.has(pane)) await suite.herdr.call('pane.close', { pane_id: pane });
      }
      await suite.box.cleanup();
    });
  } else {
    beforeEach(async () => {
      suite.launchesBefore = new Set((await readLaunches(suite.logDir)).map(launchKey));
    });
  }
  return suite;
}

function launchKey(launch: FakeLaunch): string {
  return `${launch.pid}:${launch.started_ms}`;
}

/** The fake agents' launches since the test began, oldest first. */
export async function newLaunches(suite: AgentSuite): Promise<FakeLaunch[]> {
  return (await readLaunches(suite.logDir)).filter((launch) => !suite.launchesBefore.has(launchKey(launch)));
}

/** The first launch since the test began that `match` accepts, once there is one. */
export function waitForNewLaunch(
  suite: AgentSuite,
  match: (launch: FakeLaunch) => boolean = () => true,
  timeoutMs?: number,
): Promise<FakeLaunch> {
  return waitFor('a fake agent launch', async () => (await newLaunches(suite)).find(match), { timeoutMs });
}

export async function ok(herdr: FakeHerdr, method: string, params: Record<string, unknown> = {}) {
  const reply = await herdr.call(method, params);
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result as Json;
}

export function agentCli(
  suite: AgentSuite,
  args: string[],
  options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
  return runCli(['agent', ...args], options.env ?? suite.env, {
    cwd: options.cwd ?? suite.scratch,
    timeoutMs: options.timeoutMs ?? 60_000,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

export async function launchRecords(suite: AgentSuite): Promise<LaunchRecord[]> {
  const dir = join(suite.box.state, 'launches');
  const names = await readdir(dir).catch(() => [] as string[]);
  const records: LaunchRecord[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    records.push(JSON.parse(await readFile(join(dir, name), 'utf8')));
  }
  return records;
}

/** The one launch record a test made. */
export async function onlyRecord(suite: AgentSuite): Promise<LaunchRecord> {
  const records = await launchRecords(suite);
  if (records.length !== 1 || records[0] === undefined) throw new Error(`${records.length} launch records`);
  return records[0];
}

export async function launchFileNames(suite: AgentSuite): Promise<string[]> {
  return (await readdir(join(suite.box.state, 'launches')).catch(() => [] as string[])).sort();
}

export async function items(suite: AgentSuite): Promise<Item[]> {
  const text = await readFile(join(suite.box.state, 'items.json'), 'utf8').catch(() => null);
  return text === null ? [] : ItemsSchema.parse(JSON.parse(text)).items;
}

export async function tickets(suite: AgentSuite): Promise<Ticket[]> {
  const text = await readFile(join(suite.box.state, 'queue.json'), 'utf8').catch(() => null);
  return text === null ? [] : QueueSchema.parse(JSON.parse(text)).tickets;
}

export async function paneIds(herdr: FakeHerdr): Promise<string[]> {
  return ((await ok(herdr, 'pane.list')) as Json).panes.map((pane: Json) => pane.pane_id).sort();
}

export async function agentCalls(herdr: FakeHerdr): Promise<Json[]> {
  return ((await ok(herdr, '_fake.calls.list', { method: 'agent.start' })) as Json).calls;
}

/**
 * A task whose child answers once (so Herdr sees it ready), then works in a second turn: commits a
 * file, runs `dogsled done`, and ends with `reply`.
 */
export function doneTask(reply: string, commit = true): string {
  const steps: unknown[] = [{ reply: 'Starting.' }, { sleep_ms: 400 }, { work_ms: 200 }];
  if (commit) steps.push({ run: 'echo work > work.txt && git add work.txt && git commit -qm "child work"' });
  steps.push({ run: 'dogsled done' }, { reply });
  return `Finish the unit.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps })}\n\`\`\`\n`;
}

/** A task whose fake agent replies at once (so Herdr sees it idle and ready), then stays alive. */
export function quickTask(reply = 'Finished.'): string {
  return `Do the thing.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps: [{ reply }] })}\n\`\`\`\n`;
}
