// The lean `status --line` / `--brief` (cli/hot/status-lean.ts, hosts/local-glance.ts) answers this
// host alone with its service up, reading its files by hand; everything else goes to the full path.
// Each case runs the built CLI and, on the same state, the full path in this process (statusCommand,
// whose reader is the zod one): the lean answer must be byte-identical, and DOGSLED_TIMING's marks
// say which bundle answered. A case the lean path must not answer is shown to fall back and to
// behave as the full path always did.

import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statusCommand } from '../../../cli/commands/status.js';
import type { CliContext } from '../../../cli/context.js';
import { callerPlaces } from '../../../service/actions/verb-io.js';
import type { HostSnapshot } from '../../../service/core/placement/host-types.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { runCli, type Sandbox, sandbox, timingSplit } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { agentPaneFixture, snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

const NOW = 1_900_000_000_000;
let box: Sandbox;
let env: NodeJS.ProcessEnv;
let lock: ServiceLock | undefined;

beforeEach(async () => {
  box = await sandbox();
  // No herdr on PATH: a machine list would make peers possible (covered below with one on PATH).
  env = { ...box.env, DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW), DOGSLED_TIMING: '1' };
});

afterEach(async () => {
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

/** The CLI's answer and the bundles it compiled, in order. */
async function cli(form: '--line' | '--brief') {
  const result = await runCli(['status', form], env);
  return { code: result.code, stdout: result.stdout, ...timingSplit(result.stderr) };
}

/** The full path's answer on the same state, in this process. */
async function full(form: '--line' | '--brief'): Promise<string> {
  let out = '';
  const home = env.HOME ?? '';
  const places = callerPlaces(env, home);
  const ctx: CliContext = {
    ...places,
    env,
    home,
    now: () => NOW,
    out: (text) => {
      out += text;
    },
    warn: (line) => {
      throw new Error(`unexpected warning: ${line}`);
    },
    stdoutIsTTY: false,
    color: false,
  };
  expect(await statusCommand(form === '--line' ? { line: true } : { brief: true }, ctx)).toBe(0);
  return out;
}

async function expectLeanAnswer(form: '--line' | '--brief', expected?: string) {
  const lean = await cli(form);
  expect(lean).toMatchObject({ code: 0, stderr: '', bundles: ['status-lean'] });
  expect(lean.stdout).toBe(await full(form));
  if (expected !== undefined) expect(lean.stdout).toBe(expected);
}

const stateFile = (name: string) => join(box.state, name);

describe('status --line and --brief, lean, with the service up', () => {
  it('answers a fresh snapshot byte for byte as the full path does', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 2_000, cores: 8, busy: 0.25 }));
    lock = await holdServiceLock(box.state);
    await expectLeanAnswer('--line', 'local 2/8\n');
    await expectLeanAnswer(
      '--brief',
      'local 2/8 · mem 48.0 GiB free of 64.0 GiB · disk 50% free · agents 0 live, 0 active\ndetails: dogsled status\n',
    );
  });

  it('a stale snapshot, load before the first sample, reservations and a stalled agent', async () => {
    const snapshot = snapshotFixture({ sample_ms: NOW - 31_000, busy: null, cores: 4 });
    snapshot.probe.agent_panes = [
      agentPaneFixture('w1-1', 'working', NOW - 60_000, { stalled_since_ms: NOW - 40_000 }),
      agentPaneFixture('w1-2', 'idle', NOW - 60_000),
    ];
    snapshot.probe.agents = { live: 2, active: 1 };
    await writeSnapshot(box.state, snapshot);
    const reservation = (id: string, expires_ms: number) => ({
      id,
      created_ms: NOW - 1_000,
      expires_ms,
      owner: null,
    });
    await writeFile(
      stateFile('placements.json'),
      JSON.stringify({
        version: 1,
        reservations: [reservation('r-live', NOW + 60_000), reservation('r-old', NOW - 1)],
      }),
    );
    lock = await holdServiceLock(box.state);
    await expectLeanAnswer('--line', 'local load 0.5/4 ▲\n');
    await expectLeanAnswer('--brief');
    expect((await cli('--brief')).stdout).toContain('1 stalled');
  });

  it('answers a snapshot whose strings carry escape sequences as the full path does, escape-free', async () => {
    const snapshot = snapshotFixture({ sample_ms: NOW - 1_000, busy: 0.5 });
    snapshot.host.hostname = 'evil\x1b]0;owned\x07host';
    snapshot.errors = ['probe \x1b[31mfailed\x1b[0m'];
    await writeSnapshot(box.state, snapshot);
    lock = await holdServiceLock(box.state);
    await expectLeanAnswer('--line', 'local 4/8\n');
    await expectLeanAnswer('--brief');
    expect((await cli('--brief')).stdout).not.toContain('\x1b');
  });
});

describe('status --line and --brief fall back to the full path', () => {
  beforeEach(async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 2_000, busy: 0.25 }));
  });

  it('when the service is down', async () => {
    expect(await cli('--line')).toMatchObject({
      stdout: 'local 2/8 ?\n',
      bundles: ['status-lean', 'status'],
    });
  });

  const hostile: Array<[string, (s: HostSnapshot & Record<string, unknown>) => unknown]> = [
    ['cores as a string', (s) => Object.assign(s.probe, { cores: '8' })],
    ['busy above 1', (s) => Object.assign(s.probe, { busy: 7 })],
    ['an escape where a number belongs', (s) => Object.assign(s.probe.memory, { free_bytes: '\x1b[2J' })],
    [
      'a stalled time that is text',
      (s) => Object.assign(s.probe, { agent_panes: [{ stalled_since_ms: 'x' }] }),
    ],
    ['version 2', (s) => Object.assign(s, { version: 2 })],
    ['no probe', (s) => Object.assign(s, { probe: null })],
  ];
  for (const [what, spoil] of hostile) {
    it(`for a host.json with ${what}: quarantined with one warning, as before`, async () => {
      const snapshot = snapshotFixture({ sample_ms: NOW - 2_000, busy: 0.25 }) as HostSnapshot &
        Record<string, unknown>;
      spoil(snapshot);
      await writeSnapshot(box.state, snapshot);
      lock = await holdServiceLock(box.state);
      const result = await cli('--line');
      expect(result).toMatchObject({ code: 0, stdout: 'local ?\n', bundles: ['status-lean', 'status'] });
      expect(result.stderr).toMatch(/^dogsled: warning: .*host\.json.*moved to .*host\.json\.bad-\d+/);
      expect(result.stderr.split('\n')).toHaveLength(1);
      expect((await readdir(box.state)).filter((f) => f.startsWith('host.json.bad-'))).toHaveLength(1);
    });
  }

  it('for a host.json that is not JSON, or a directory', async () => {
    lock = await holdServiceLock(box.state);
    await writeFile(stateFile('host.json'), '{"version": 1, "host": ');
    expect(await cli('--line')).toMatchObject({ stdout: 'local ?\n', bundles: ['status-lean', 'status'] });
    await mkdir(stateFile('host.json'));
    const directory = await cli('--line');
    // The full path refuses a directory where a state file belongs, as it always did.
    expect(directory).toMatchObject({ code: 2, stdout: '', bundles: ['status-lean', 'status'] });
    expect(directory.stderr).toMatch(/host\.json: it is a directory, not a regular file/);
  });

  it('for a placements.json with a bad reservation', async () => {
    lock = await holdServiceLock(box.state);
    await writeFile(
      stateFile('placements.json'),
      JSON.stringify({ version: 1, reservations: [{ id: '', created_ms: 1, expires_ms: 2, owner: null }] }),
    );
    const result = await cli('--line');
    expect(result).toMatchObject({ code: 0, stdout: 'local 2/8\n', bundles: ['status-lean', 'status'] });
    expect(result.stderr).toMatch(/placements\.json.*moved to/);
  });

  it('when a peer is configured, even a disabled one', async () => {
    lock = await holdServiceLock(box.state);
    const config = join(env.HOME ?? '', '.config', 'dogsled');
    await mkdir(config, { recursive: true });
    await writeFile(join(config, 'config.toml'), '[[hosts]]\nid = "peer1"\nenabled = false\n');
    expect(await cli('--line')).toMatchObject({ stdout: 'local 2/8\n', bundles: ['status-lean', 'status'] });
  });

  it('when a fleet bus is configured: its hosts are peers (nothing listens here, so none is met)', async () => {
    lock = await holdServiceLock(box.state);
    const config = join(env.HOME ?? '', '.config', 'dogsled');
    await mkdir(config, { recursive: true });
    await writeFile(join(config, 'config.toml'), '[fleet]\nbus = "nats://127.0.0.1:1"\n');
    expect(await cli('--line')).toMatchObject({ stdout: 'local 2/8\n', bundles: ['status-lean', 'status'] });
  });

  it('when a herdr binary could list machines and no fresh empty list is shared', async () => {
    lock = await holdServiceLock(box.state);
    const bin = join(box.root, 'bin');
    await mkdir(bin);
    // A herdr without machine verbs: the full path asks it, finds none, and shares that for 10 s.
    await writeFile(join(bin, 'herdr'), '#!/bin/sh\necho "unknown command" >&2\nexit 2\n', { mode: 0o755 });
    env = { ...env, PATH: `${bin}:${env.PATH ?? ''}` };
    const first = await cli('--line');
    expect(first).toMatchObject({ stdout: 'local 2/8\n', bundles: ['status-lean', 'status'] });
    // The shared list says no machines: now the lean path may answer.
    await expectLeanAnswer('--line', 'local 2/8\n');
  });

  it('--brief, when items.json, queue.json or sweep.json is in doubt', async () => {
    lock = await holdServiceLock(box.state);
    await writeFile(
      stateFile('items.json'),
      JSON.stringify({ version: 1, items: [{ owner: 7, closed_ms: null }] }),
    );
    const brief = await cli('--brief');
    expect(brief.bundles).toEqual(['status-lean', 'status']);
    expect(brief.stderr).toMatch(/items\.json.*moved to/);
    // The line never counts items: it stays lean.
    expect((await cli('--line')).bundles).toEqual(['status-lean']);
    await writeFile(stateFile('queue.json'), '{"version": 1, "tickets": [');
    expect((await cli('--brief')).bundles).toEqual(['status-lean', 'status']);
    await rm(stateFile('queue.json'), { force: true });
    await mkdir(stateFile('sweep.json'));
    expect((await cli('--brief')).bundles).toEqual(['status-lean', 'status']);
  });
});

describe('status --brief, lean, with work on file', () => {
  const item = (id: string, extra: object = {}) => ({
    id,
    kind: 'job',
    host: 'local',
    pane: null,
    terminal_id: null,
    owner: 'w1:p1',
    created_ms: NOW - 5_000,
    closed_ms: null,
    close_reason: null,
    job: `j_${id}`,
    ticket: null,
    command: ['make'],
    ...extra,
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
  const pass = (extra: object) => ({
    version: 1,
    ts_ms: NOW - 60_000,
    started_ms: NOW - 61_000,
    finished_ms: NOW - 60_000,
    request_ms: null,
    results: [],
    skipped: [],
    failures: [],
    warnings: [],
    landed_dirty: [],
    unlinked: [],
    error: null,
    ...extra,
  });

  it('counts open items, orphans, pending tickets and the cleanup pass as the full path does', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 2_000, busy: 0.25 }));
    lock = await holdServiceLock(box.state);
    // Nothing on file but empty files: as with none.
    await writeFile(stateFile('items.json'), JSON.stringify({ version: 1, items: [] }));
    await expectLeanAnswer('--brief');
    await writeFile(
      stateFile('items.json'),
      JSON.stringify({
        version: 1,
        items: [
          item('i_1'),
          item('i_2', { orphaned: { reason: 'owner gone', since_ms: NOW - 1_000 } }),
          item('i_3', { closed_ms: NOW - 1_000, close_reason: 'job ended' }),
        ],
      }),
    );
    await writeFile(
      stateFile('queue.json'),
      JSON.stringify({
        version: 1,
        tickets: [ticket('t_1', 'pending'), ticket('t_2', 'admitting'), ticket('t_3', 'admitted')],
      }),
    );
    await writeFile(
      stateFile('sweep.json'),
      JSON.stringify(pass({ warnings: ['git gc: slow'], unlinked: [] })),
    );
    await expectLeanAnswer(
      '--brief',
      'local 2/8 · mem 48.0 GiB free of 64.0 GiB · disk 50% free · agents 0 live, 0 active\n' +
        '2 open items · 2 pending tickets · 1 orphaned · cleanup 1 warning · details: dogsled status\n',
    );
    await writeFile(stateFile('sweep.json'), JSON.stringify(pass({ error: 'boom' })));
    await expectLeanAnswer('--brief');
    expect((await cli('--brief')).stdout).toContain('cleanup 1 failed');
  });
});
