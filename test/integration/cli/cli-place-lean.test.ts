// The lean `place` (cli/hot/place-lean.ts, service/hosts/reserve-glance.ts) reserves on this host
// alone, its service up and no ticket waiting, without zod. Each case runs the CLI and, on the same
// state (restored in between), the full place bundle itself (dist/hot/place.cjs, what main.ts runs
// when the lean one does not answer): stdout, stderr, exit status and every state file afterwards
// must be the same (a reservation id is random: it is compared as `r_ID`), and DOGSLED_TIMING's
// marks say which bundle answered.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseFast } from '../../../cli/fast-path.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { CLI, ROOT, runNode, type Sandbox, sandbox, timingSplit } from '../../helpers/cli.js';
import { lockUnrefreshedFor, stopInLock, stoppedItself } from '../../helpers/frozen-lock.js';
import { moduleProbe } from '../../helpers/module-probe.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { mkfifo, restoreState, stateFiles, stateTexts } from '../../helpers/state-files.js';

const NOW = 1_900_000_000_000;
const FULL_PLACE = join(ROOT, 'dist', 'hot', 'place.cjs');
const ROOMY =
  'free_core_fraction_min = 0.0\nmemory_reserve_bytes = 0\ndisk_free_min_percent = 0\nreservation_load = 0.0\nreservation_ttl_ms = 90000\n';

let box: Sandbox;
let lock: ServiceLock | undefined;
let baseline: Map<string, Buffer>;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  bundles: string[];
  files: Record<string, string>;
}

/** Reservation ids are random: the same placement has another id on each path. */
const ids = (text: string) => text.replace(/\b([rt])_[a-z2-7]{12}\b/g, '$1_ID');

async function spawned(argv: string[], env: NodeJS.ProcessEnv): Promise<Omit<Run, 'files' | 'bundles'>> {
  const { code, stdout, stderr } = await runNode(argv, env, { cwd: box.home, timeoutMs: 60_000 });
  return { code, stdout, stderr };
}

async function finished(run: Omit<Run, 'files' | 'bundles'>): Promise<Run> {
  const { stderr, bundles } = timingSplit(run.stderr);
  const files = Object.fromEntries(
    Object.entries(await stateTexts(box.state)).map(([name, text]) => [name, ids(text)]),
  );
  return { code: run.code, stdout: ids(run.stdout), stderr: ids(stderr), bundles, files };
}

const env = (extra: NodeJS.ProcessEnv = {}) => ({
  ...box.env,
  DOGSLED_TEST: '1',
  DOGSLED_TEST_NOW_MS: String(NOW),
  ...extra,
});

async function compare(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Run> {
  const before = await stateFiles(box.state);
  const flags = parseFast(['place', ...args])?.flags;
  const script =
    'require(process.argv[1]).run(JSON.parse(process.argv[2])).then((c) => { process.exitCode = c; })';
  const full = await finished(await spawned(['-e', script, FULL_PLACE, JSON.stringify(flags)], env(extra)));
  await restoreState(box.state, before);
  const lean = await finished(await spawned([CLI, 'place', ...args], env({ DOGSLED_TIMING: '1', ...extra })));
  expect({ code: lean.code, stdout: lean.stdout, stderr: lean.stderr }).toEqual({
    code: full.code,
    stdout: full.stdout,
    stderr: full.stderr,
  });
  expect(lean.files).toEqual(full.files);
  return lean;
}

/** The CLI started in the sandbox, its process at hand: for a test that stops it or waits on it. */
function runNodeChild(
  argv: string[],
  extra: NodeJS.ProcessEnv,
): { proc: ChildProcess; done: Promise<Spawned> } {
  const proc = spawn(process.execPath, argv, {
    cwd: box.home,
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Spawned>((resolve) =>
    proc.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { proc, done };
}

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

const LEAN = ['place-lean'];
const FELL_BACK = ['place-lean', 'place'];
const stateFile = (name: string) => join(box.state, name);

const reservation = (id: string, expires_ms: number) => ({
  id,
  created_ms: NOW - 5_000,
  expires_ms,
  owner: null,
});
const ticket = (id: string, state: string) => ({
  id,
  kind: 'place',
  created_ms: NOW - 4_000,
  owner: null,
  pin: null,
  request: null,
  waiting: false,
  state,
  state_ms: NOW - 4_000,
  admitter: null,
  host: null,
  reservation: null,
  job: null,
  item: null,
  error: null,
  notice: null,
});

beforeAll(async () => {
  box = await sandbox();
  await writeFile(box.configPath, ROOMY);
  await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 2_000, cores: 8, busy: 0.25 }));
  lock = await holdServiceLock(box.state);
  baseline = await stateFiles(box.state);
});

afterAll(async () => {
  await lock?.release();
  await box?.cleanup();
});

beforeEach(async () => {
  await restoreState(box.state, baseline);
});

describe('place, lean, on this host alone with room', () => {
  it('reserves as the full path does, --json and for people, with its backup', async () => {
    const json = await compare(['--json']);
    expect(json).toMatchObject({ code: 0, bundles: LEAN });
    expect(JSON.parse(json.stdout)).toEqual({
      placed: true,
      host: 'local',
      label: 'local',
      reservation: 'r_ID',
      expires_ms: NOW + 90_000,
    });
    expect(JSON.parse(json.files['placements.json'] ?? '')).toEqual({
      version: 1,
      reservations: [{ id: 'r_ID', created_ms: NOW, expires_ms: NOW + 90_000, owner: null }],
    });
    expect(json.files['placements.json.prev']).toBe(json.files['placements.json']);
    const human = await compare([]);
    expect(human).toMatchObject({
      code: 0,
      bundles: LEAN,
      stdout: 'reserved local (local) for 90s: r_ID\n',
    });
  });

  it('keeps the live reservations, drops the expired ones, and names the owner pane', async () => {
    await writeFile(
      stateFile('placements.json'),
      JSON.stringify({
        version: 1,
        reservations: [reservation('r_aaaaaaaaaaaa', NOW + 60_000), reservation('r_bbbbbbbbbbbb', NOW - 1)],
        note: 'a field of a newer dogsled',
      }),
    );
    await writeFile(
      stateFile('queue.json'),
      JSON.stringify({ version: 1, tickets: [ticket('t_1', 'admitted'), ticket('t_2', 'cancelled')] }),
    );
    const run = await compare(['--json'], { HERDR_PANE_ID: 'w1:p2' });
    expect(run.bundles).toEqual(LEAN);
    const file = JSON.parse(run.files['placements.json'] ?? '');
    expect(file.reservations.map((r: { owner: string | null }) => r.owner)).toEqual([null, 'w1:p2']);
    expect(file.note).toBe('a field of a newer dogsled');
  });

  it('a placements.json that is not JSON: recovered from its backup by the same store', async () => {
    const good = { version: 1, reservations: [reservation('r_aaaaaaaaaaaa', NOW + 60_000)] };
    await writeFile(stateFile('placements.json.prev'), `${JSON.stringify(good, null, 2)}\n`);
    await writeFile(stateFile('placements.json'), '{"version": 1, "reser');
    const run = await compare(['--json']);
    expect(run).toMatchObject({ code: 0, bundles: LEAN });
    expect(run.stderr).toMatch(/placements\.json.*recovered from placements\.json\.prev/);
    expect(JSON.parse(run.files['placements.json'] ?? '').reservations).toHaveLength(2);
  });
});

describe("the lean place's locks, taken at once where free (update-now.ts)", () => {
  for (const file of ['queue.json', 'placements.json']) {
    it(`${file}'s lock left by a dead holder: the waiting lock breaks it, and the same reservation is made`, async () => {
      const lockDir = stateFile(`${file}.lock`);
      await mkdir(lockDir);
      const dead = spawnSync(process.execPath, ['-e', '0']).pid;
      const record = { pid: dead, start: null, hostname: hostname(), token: 'gone', since_ms: NOW - 1_000 };
      await writeFile(join(lockDir, 'owner'), JSON.stringify(record));
      const run = await compare(['--json']);
      expect(run).toMatchObject({ code: 0, bundles: LEAN });
      expect(JSON.parse(run.files['placements.json'] ?? '').reservations).toHaveLength(1);
      expect(Object.keys(run.files).filter((name) => name.includes('.lock'))).toEqual([]);
    });
  }

  it('a lock held by a live process: the lean place waits for it as the full one does', async () => {
    const lockDir = stateFile('placements.json.lock');
    await mkdir(lockDir);
    const record = { pid: process.pid, start: null, hostname: hostname(), token: 'mine', since_ms: NOW };
    await writeFile(join(lockDir, 'owner'), JSON.stringify(record));
    const started = runNode([CLI, 'place', '--json'], env({ DOGSLED_TIMING: '1' }), {
      cwd: box.home,
      timeoutMs: 60_000,
    });
    // Still waiting a second later: nothing reserved past a lock someone holds.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await readFile(stateFile('placements.json'), 'utf8').catch(() => null)).toBeNull();
    await rm(lockDir, { recursive: true });
    const run = await started;
    expect(run.code).toBe(0);
    expect(timingSplit(run.stderr).bundles).toEqual(LEAN);
    expect(JSON.parse(await readFile(stateFile('placements.json'), 'utf8')).reservations).toHaveLength(1);
  });

  it("waits behind a holder frozen (SIGSTOP) inside placements.json's lock, and reserves after it", async () => {
    const stale = { DOGSLED_TEST_LOCK_STALE_MS: '1000' };
    const placed = (run: { code: number | null; stdout: string }) => ({
      code: run.code,
      placed: run.code === 0 ? JSON.parse(run.stdout).placed : undefined,
    });
    const holding = runNodeChild([CLI, 'place', '--json'], {
      ...stale,
      DOGSLED_TIMING: '1',
      ...stopInLock('placements.json'),
    });
    let second: ReturnType<typeof runNodeChild> | undefined;
    try {
      await stoppedItself(holding.proc.pid);
      second = runNodeChild([CLI, 'place', '--json'], { ...stale, DOGSLED_TIMING: '1' });
      // Three stale windows: a waiter that judged the lock by its age would have broken it by then.
      await lockUnrefreshedFor(stateFile('placements.json'), 3_000);
      expect(second.proc.exitCode).toBeNull();
      holding.proc.kill('SIGCONT');
      const [first, next] = [await holding.done, await second.done];
      for (const run of [first, next]) {
        expect(placed(run)).toEqual({ code: 0, placed: true });
        expect(timingSplit(run.stderr)).toMatchObject({ stderr: '', bundles: LEAN });
      }
      const file = JSON.parse(await readFile(stateFile('placements.json'), 'utf8'));
      expect(file.reservations).toHaveLength(2);
      // The backup holds every reservation reported, the waiting one's included.
      expect(JSON.parse(await readFile(stateFile('placements.json.prev'), 'utf8'))).toEqual(file);
    } finally {
      holding.proc.kill('SIGCONT');
      holding.proc.kill('SIGKILL');
      second?.proc.kill('SIGKILL');
    }
  }, 60_000);

  const spoiled: Array<[string, () => Promise<void>]> = [
    ['a directory', () => mkdir(stateFile('placements.json'))],
    ['a FIFO', () => mkfifo(stateFile('placements.json'))],
  ];
  for (const [what, spoil] of spoiled) {
    it(`placements.json that is ${what}: the waiting path (a file of its own) meets it as the full place does`, async () => {
      await spoil();
      const run = await compare(['--json']);
      expect(run).toMatchObject({ code: 2, bundles: LEAN, stdout: '' });
      // One line naming the file, as the full place words it (compare() holds them equal).
      expect(run.stderr).toMatch(/^dogsled: place: [^\n]*placements\.json[^\n]*$/);
    });
  }

  it('loads neither node:fs/promises nor the waiting lock where the locks are free', async () => {
    const probe = await moduleProbe(box.root);
    // Twice: the second run compiles from the code cache the first one wrote.
    for (let i = 0; i < 2; i++) {
      const run = await spawned(['-r', probe.preload, CLI, 'place', '--json'], env());
      expect(run.code).toBe(0);
    }
    const loaded = await probe.loaded();
    expect(loaded.filter((m) => /fs\/promises|timers\/promises|signal_wrap|net|stream/.test(m))).toEqual([]);
  });
});

describe('anything else goes to the full place, which answers as it always did', () => {
  it('a ticket waiting: queued behind it (FIFO)', async () => {
    await writeFile(
      stateFile('queue.json'),
      JSON.stringify({ version: 1, tickets: [ticket('t_1', 'pending')] }),
    );
    const run = await compare(['--json']);
    expect(run).toMatchObject({ code: 1, bundles: FELL_BACK });
    expect(JSON.parse(run.stdout)).toMatchObject({ queued: true });
  });

  it('no room: the full path queues a ticket', async () => {
    await writeFile(
      box.configPath,
      `${ROOMY.replace('memory_reserve_bytes = 0', 'memory_reserve_bytes = 1099511627776')}`,
    );
    try {
      const run = await compare(['--json']);
      expect(run).toMatchObject({ code: 1, bundles: FELL_BACK });
      expect(run.stderr).toMatch(/queued as t_/);
    } finally {
      await writeFile(box.configPath, ROOMY);
    }
  });

  it('a peer configured', async () => {
    await writeFile(box.configPath, `${ROOMY}[[hosts]]\nid = "peer1"\nenabled = false\n`);
    try {
      expect((await compare(['--json'])).bundles).toEqual(FELL_BACK);
    } finally {
      await writeFile(box.configPath, ROOMY);
    }
  });

  it('the service down', async () => {
    await lock?.release();
    lock = undefined;
    try {
      const run = await compare(['--json']);
      expect(run).toMatchObject({ code: 1, bundles: FELL_BACK });
    } finally {
      lock = await holdServiceLock(box.state);
    }
  });

  const hostile: Array<[string, () => Promise<void>]> = [
    ['queue.json that is not JSON', () => writeFile(stateFile('queue.json'), '{"version":1,"tickets":[')],
    [
      'a ticket in no known state',
      () =>
        writeFile(
          stateFile('queue.json'),
          JSON.stringify({ version: 1, tickets: [{ owner: null, state: 'lost' }] }),
        ),
    ],
    [
      'host.json with cores as a string',
      async () => {
        const snapshot = snapshotFixture({ sample_ms: NOW - 2_000 });
        Object.assign(snapshot.probe, { cores: '8' });
        await writeSnapshot(box.state, snapshot);
      },
    ],
    [
      'host.json that is a directory',
      async () => {
        await writeFile(stateFile('host.json'), '');
        const { rm } = await import('node:fs/promises');
        await rm(stateFile('host.json'));
        await mkdir(stateFile('host.json'));
      },
    ],
  ];
  for (const [what, spoil] of hostile) {
    it(what, async () => {
      await spoil();
      const run = await compare(['--json']);
      expect(run.bundles).toEqual(FELL_BACK);
    });
  }

  it('a flag the lean place does not take', async () => {
    const run = await compare(['--json', '--host', 'local']);
    expect(run.bundles).toEqual(['place']);
    expect(JSON.parse(await readFile(stateFile('placements.json'), 'utf8')).reservations).toHaveLength(1);
  });
});
