// The lean `status --json` (cli/hot/status-json-lean.ts, service/actions/status-json-glance.ts) answers
// when every file it reads is plain and every peer of config.toml's list has a fresh cache entry,
// with the service up or with none; everything else goes to the full path. Each case runs the built
// CLI and, on the same state, the full path in this process (statusCommand, whose readers are the
// zod ones behind their hand checks): the lean answer must be byte-identical, and DOGSLED_TIMING's
// marks say which bundle answered. Peers due a read are read as the full path's early reads read
// them (a fake ssh on PATH runs a fake peer here), the same entries written. A state the lean path
// must not answer (a peer's lock held, a file in doubt: a directory, a FIFO, garbage) is shown to
// fall back having started nothing, and the answer is the full path's.

import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statusCommand } from '../../../cli/commands/status.js';
import type { CliContext } from '../../../cli/context.js';
import { callerPlaces } from '../../../service/actions/verb-io.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { runCli, type Sandbox, sandbox, timingSplit } from '../../helpers/cli.js';
import { itemFixture, ticketFixture } from '../../helpers/job-fixtures.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

const NOW = 1_900_000_000_000;
let box: Sandbox;
let env: NodeJS.ProcessEnv;
let lock: ServiceLock | undefined;

beforeEach(async () => {
  box = await sandbox();
  // No herdr on PATH (a machine list would make peers possible); a short budget for the full
  // path's reads of a peer the lean path leaves to it (its target never resolves).
  env = {
    ...box.env,
    DOGSLED_TEST: '1',
    DOGSLED_TEST_NOW_MS: String(NOW),
    DOGSLED_TEST_PEER_BUDGET_MS: '2000',
    DOGSLED_TIMING: '1',
  };
});

afterEach(async () => {
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

const stateFile = (name: string) => join(box.state, name);

async function cli() {
  const result = await runCli(['status', '--json'], env);
  return { code: result.code, stdout: result.stdout, ...timingSplit(result.stderr) };
}

/** The full path's answer on the same state (or on `state`, a copy of it), in this process. */
async function full(state?: string): Promise<{ code: number; out: string; warnings: string[] }> {
  let out = '';
  const warnings: string[] = [];
  const home = env.HOME ?? '';
  const at = state === undefined ? env : { ...env, DOGSLED_STATE: state };
  const ctx: CliContext = {
    ...callerPlaces(at, home),
    env: at,
    home,
    now: () => NOW,
    out: (text) => {
      out += text;
    },
    warn: (line) => {
      warnings.push(line);
    },
    stdoutIsTTY: false,
    color: false,
  };
  const code = await statusCommand({ json: true }, ctx);
  return { code, out, warnings };
}

async function expectLeanAnswer(): Promise<string> {
  const lean = await cli();
  expect(lean).toMatchObject({ code: 0, stderr: '', bundles: ['status-json-lean'] });
  const reference = await full();
  expect(reference).toMatchObject({ code: 0, warnings: [] });
  expect(lean.stdout).toBe(reference.out);
  return lean.stdout;
}

async function writeConfig(hosts: Array<{ id: string; label?: string }>, extra = ''): Promise<void> {
  const dir = join(env.HOME ?? '', '.config', 'dogsled');
  await mkdir(dir, { recursive: true });
  const tables = hosts.map(
    (h) =>
      `[[hosts]]\nid = "${h.id}"\ntarget = "${h.id}.invalid"\n${h.label ? `label = ${JSON.stringify(h.label)}\n` : ''}`,
  );
  await writeFile(join(dir, 'config.toml'), `${extra}\n${tables.join('\n')}`);
}

/** A peer's cache entry as the cache writes it, read `ageMs` before NOW. */
function peerEntry(id: string, ageMs = 1_000, reply: Record<string, unknown> = {}) {
  const snapshot = snapshotFixture({ sample_ms: NOW - ageMs - 500, busy: 0.5, cores: 4 });
  return {
    version: 1,
    id,
    target: `${id}.invalid`,
    attempt_ms: NOW - ageMs,
    read_ms: NOW - ageMs,
    unreachable: null,
    failures: 0,
    retry_at_ms: null,
    reply: {
      now_ms: NOW - ageMs + 20,
      host: {
        hostname: `${id}-host`,
        service: 'up',
        sample_ms: NOW - ageMs - 500,
        interval_ms: 5000,
        probe: snapshot.probe,
        headroom: snapshot.headroom,
        reservations: [],
        errors: [],
        facts: null,
      },
      jobs: [],
      ...reply,
    },
  };
}

async function writeEntry(id: string, entry: unknown): Promise<void> {
  await mkdir(stateFile('peers'), { recursive: true });
  await writeFile(stateFile(`peers/${id}.json`), `${JSON.stringify(entry, null, 2)}\n`);
}

const SWEEP = {
  version: 1,
  ts_ms: NOW - 60_000,
  started_ms: NOW - 61_000,
  finished_ms: NOW - 60_000,
  request_ms: NOW - 62_000,
  trigger: 'request',
  results: [
    {
      kind: 'worktree',
      path: '/r/w',
      branch: 'b',
      branch_deleted: true,
      panes: [],
      already_removed: false,
      detail: 'merged',
    },
  ],
  skipped: [],
  failures: [],
  warnings: ['fetch failed'],
  landed_dirty: [],
  unlinked: [],
  orphans: [],
  error: null,
};

/** A host with work: two peers fresh, items open and closed, tickets settled and not, a sweep pass. */
async function fleetState(): Promise<void> {
  await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 2_000, cores: 8, busy: 0.25 }));
  await writeConfig([{ id: 'f1' }, { id: 'f2', label: 'second peer' }]);
  await writeEntry('f1', peerEntry('f1'));
  await writeEntry('f2', peerEntry('f2', 3_000));
  await writeFile(
    stateFile('items.json'),
    JSON.stringify({
      version: 1,
      items: [
        itemFixture({ id: 'i_open', host: 'local' }),
        itemFixture({ id: 'i_closed', host: 'local', closed_ms: NOW - 5_000, close_reason: 'done' }),
      ],
    }),
  );
  await writeFile(
    stateFile('queue.json'),
    JSON.stringify({
      version: 1,
      tickets: [
        ticketFixture({ id: 't_late', created_ms: NOW - 1_000 }),
        ticketFixture({ id: 't_early', created_ms: NOW - 9_000 }),
      ],
    }),
  );
  await writeFile(stateFile('sweep.json'), JSON.stringify(SWEEP));
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
      reservations: [reservation('r_live', NOW + 60_000), reservation('r_old', NOW - 1)],
    }),
  );
}

describe('status --json, lean', () => {
  it('answers two fresh peers, open work and a sweep pass byte for byte as the full path, service up', async () => {
    await fleetState();
    lock = await holdServiceLock(box.state);
    const report = JSON.parse(await expectLeanAnswer());
    expect(report.hosts.map((h: { id: string }) => h.id)).toEqual(['local', 'f1', 'f2']);
    expect(report.items.map((i: { id: string }) => i.id)).toEqual(['i_open']);
    expect(report.queue.map((t: { id: string }) => t.id)).toEqual(['t_early', 't_late']);
    expect(report.sweep.warnings).toEqual(['fetch failed']);
    expect(report.hosts[0].reservations.map((r: { id: string }) => r.id)).toEqual(['r_live']);
  });

  it('with no service here, and with no peer, no work and no host.json at all', async () => {
    await fleetState();
    await expectLeanAnswer();
    box = await sandbox();
    env = { ...env, ...box.env };
    await expectLeanAnswer();
  });

  it('a peer whose last read failed and whose backoff is not over: shown unreachable, as the full path shows it', async () => {
    await fleetState();
    await writeEntry('f2', {
      ...peerEntry('f2', 60_000),
      attempt_ms: NOW - 12_000,
      unreachable: 'timeout',
      failures: 2,
      retry_at_ms: NOW + 20_000,
    });
    const report = JSON.parse(await expectLeanAnswer());
    expect(report.hosts[2]).toMatchObject({ reachable: false, unreachable: 'timeout' });
  });

  it("escape sequences in a peer's strings (from another host) come out as the full path gives them, escape-free", async () => {
    await fleetState();
    const snapshot = snapshotFixture({ sample_ms: NOW - 1_000, busy: 0.5 });
    await writeEntry(
      'f1',
      peerEntry('f1', 1_000, {
        host: {
          hostname: 'evil\u001b]0;owned\u0007\nhost',
          service: 'up',
          sample_ms: NOW - 1_500,
          interval_ms: 5000,
          probe: { ...snapshot.probe, os: 'linux\u001b[2J' },
          headroom: { ...snapshot.headroom, reason: ['\u001b[31mbusy\u001b[0m'] },
          reservations: [{ id: 'r\u001b[1m', created_ms: NOW, expires_ms: NOW + 1, owner: '\u009b31m' }],
          errors: ['probe \u001b[31mfailed\u001b[0m'],
          facts: { bogus: true },
        },
        'note\u001b[2J': 'x\u001b[5m'.repeat(10_000),
      }),
    );
    lock = await holdServiceLock(box.state);
    const out = await expectLeanAnswer();
    expect(out).not.toMatch(/\u001b|\u009b|\u0007/);
    // JSON escapes a control character; none is left to escape either.
    expect(out).not.toMatch(/\\u001b|\\u009b|\\u0007/);
  });
});

describe('status --json falls back to the full path', () => {
  beforeEach(fleetState);

  async function expectFallback() {
    const result = await cli();
    expect(result.bundles).toEqual(['status-json-lean', 'status']);
    return result;
  }

  it('when the fleet may come from Herdr or the bus', async () => {
    await writeConfig([{ id: 'f1' }, { id: 'f2' }], '[fleet]\nbus = "nats://127.0.0.1:1"\n');
    expect((await cli()).bundles).toEqual(['status-json-lean', 'status']);
    await writeConfig([{ id: 'f1' }, { id: 'f2' }]);
    const bin = join(box.root, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'herdr'), '#!/bin/sh\nexit 1\n');
    await chmod(join(bin, 'herdr'), 0o755);
    env = { ...env, PATH: `${bin}:${env.PATH}` };
    expect((await cli()).bundles).toEqual(['status-json-lean', 'status']);
  });

  it('when the service lock names an owner that is gone', async () => {
    await mkdir(stateFile('service.lock'), { recursive: true });
    await writeFile(
      stateFile('service.lock/owner'),
      JSON.stringify({ pid: 2 ** 22 + 7, start: '1', hostname: 'elsewhere-host' }),
    );
    await expectFallback();
  });

  const files = ['host.json', 'placements.json', 'items.json', 'queue.json', 'sweep.json', 'peers/f1.json'];
  for (const name of files) {
    it(`for ${name} that is not JSON: the full path's answer and warning`, async () => {
      await writeFile(stateFile(name), '{"version": 1, \u001b[2J');
      const result = await expectFallback();
      const reference = await full();
      expect(result.code).toBe(reference.code);
      expect(result.stdout).toBe(reference.out);
      expect(result.stderr).toMatch(/moved to/);
    });

    it(`for ${name} that is a directory or a FIFO: never answered lean, never blocking`, async () => {
      await rm(stateFile(name), { force: true });
      await mkdir(stateFile(name));
      const directory = await expectFallback();
      const reference = await full().catch((error: unknown) => ({ code: 2, out: '', error }));
      expect(directory.code).toBe(reference.code);
      expect(directory.stdout).toBe(reference.out);
      await rm(stateFile(name), { recursive: true });
      execFileSync('mkfifo', [stateFile(name)]);
      const fifo = await expectFallback();
      expect(fifo.code).toBe(directory.code);
    });
  }

  it('for a record a field of which its check refuses (a sweep pass with a count as text)', async () => {
    await writeFile(stateFile('sweep.json'), JSON.stringify({ ...SWEEP, ts_ms: 'soon' }));
    const result = await expectFallback();
    expect(result.stderr).toMatch(/sweep\.json/);
    expect(JSON.parse(result.stdout).sweep).toBeNull();
    expect((await readdir(box.state)).some((f) => f.startsWith('sweep.json.bad-'))).toBe(true);
    expect(await readFile(stateFile('items.json'), 'utf8')).toContain('i_open');
  });
});

describe('status --json, lean, with peers due a read (a cold cache)', () => {
  let sshLog: string;
  let replies: string;

  /** A fake ssh on PATH: logs the host, then runs the remote line here (a fake peer prints its reply). */
  beforeEach(async () => {
    await fleetState();
    const bin = join(box.root, 'bin');
    replies = join(box.root, 'replies');
    sshLog = join(box.root, 'ssh.log');
    await mkdir(bin, { recursive: true });
    await mkdir(replies, { recursive: true });
    await writeFile(
      join(bin, 'ssh'),
      `#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\necho "$1" >> '${sshLog}'\nPEER_HOST="$1" exec sh -c "$2"\n`,
    );
    await chmod(join(bin, 'ssh'), 0o755);
    const peer = join(bin, 'fake-peer');
    await writeFile(peer, `#!/bin/sh\ncat '${replies}'/"$PEER_HOST".json\n`);
    await chmod(peer, 0o755);
    env = { ...env, PATH: `${bin}:${env.PATH}` };
    const dir = join(env.HOME ?? '', '.config', 'dogsled');
    const config = await readFile(join(dir, 'config.toml'), 'utf8');
    await writeFile(join(dir, 'config.toml'), `remote_command = [${JSON.stringify(peer)}]\n${config}`);
    for (const id of ['f1', 'f2']) await writeReply(id, peerEntry(id).reply);
    await rm(stateFile('peers'), { recursive: true, force: true });
  });

  const writeReply = (id: string, reply: unknown, text = JSON.stringify(reply)) =>
    writeFile(join(replies, `${id}.invalid.json`), text);
  const sshCalls = async () =>
    (await readFile(sshLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).sort();
  const entries = async (state: string) =>
    Promise.all(['f1', 'f2'].map((id) => readFile(join(state, 'peers', `${id}.json`), 'utf8')));

  /** The lean answer on this state, and the full path's on a copy of it made first. */
  async function bothCold() {
    const copy = join(box.root, 'state-copy');
    await cp(box.state, copy, { recursive: true });
    const lean = await cli();
    const calls = await sshCalls();
    await rm(sshLog, { force: true });
    const reference = await full(copy);
    return { lean, calls, reference, copy };
  }

  it('reads every due peer once, as the full path does, and answers byte for byte as it, service down', async () => {
    await writeEntry('f2', peerEntry('f2', 11_000));
    const { lean, calls, reference, copy } = await bothCold();
    expect(lean).toMatchObject({ code: 0, stderr: '', bundles: ['status-json-lean'] });
    expect(calls).toEqual(['f1.invalid', 'f2.invalid']);
    expect(reference).toMatchObject({ code: 0, warnings: [] });
    expect(await sshCalls()).toEqual(['f1.invalid', 'f2.invalid']);
    expect(lean.stdout).toBe(reference.out);
    expect(await entries(box.state)).toEqual(await entries(copy));
    // Now warm: nothing is read again.
    await rm(sshLog, { force: true });
    expect((await cli()).bundles).toEqual(['status-json-lean']);
    expect(await sshCalls()).toEqual([]);
  });

  it("with a peer-read.sock nobody listens on (a service that died): read through ssh, as the full path's pool client does", async () => {
    lock = await holdServiceLock(box.state);
    await writeFile(stateFile('peer-read.sock'), '');
    const { lean, calls, reference, copy } = await bothCold();
    expect(lean).toMatchObject({ code: 0, stderr: '', bundles: ['status-json-lean'] });
    expect(calls).toEqual(['f1.invalid', 'f2.invalid']);
    expect(lean.stdout).toBe(reference.out);
    expect(await entries(box.state)).toEqual(await entries(copy));
  });

  it("a peer's reply with escape sequences and extras: judged and cleaned as the full path does", async () => {
    const snapshot = snapshotFixture({ sample_ms: NOW - 1_000, busy: 0.5 });
    await writeReply('f1', {
      now_ms: NOW,
      host: {
        hostname: 'evil\u001b]0;owned\u0007host',
        service: 'up',
        sample_ms: NOW - 1_000,
        interval_ms: 5000,
        probe: { ...snapshot.probe, os: '\u009b2Jlinux' },
        headroom: { ...snapshot.headroom, reason: ['\u001b[31mbusy'] },
        reservations: [],
        errors: ['\u001b[2Jwiped'],
        facts: 'not facts',
      },
      'extra\u001b[5m': { deep: ['\u001b[1m'] },
    });
    const { lean, reference, copy } = await bothCold();
    expect(lean).toMatchObject({ code: 0, stderr: '', bundles: ['status-json-lean'] });
    expect(lean.stdout).toBe(reference.out);
    expect(lean.stdout).not.toMatch(/\u001b|\u009b|\\u001b|\\u009b/);
    expect(await entries(box.state)).toEqual(await entries(copy));
  });

  it('a reply that is not dogsled, or a refusal: the same entry, view and warning as the full path (but the jitter)', async () => {
    await writeReply('f1', null, 'not json \u001b[2J');
    await writeReply('f2', { version: 1, something: 'else' });
    const { lean, reference } = await bothCold();
    expect(lean).toMatchObject({ code: 0, bundles: ['status-json-lean'] });
    // The backoff's jitter is drawn at random: the retry time is the one field that may differ.
    const steady = (text: string) => text.replace(/"retry_ms":\d+/g, '"retry_ms":N');
    expect(steady(lean.stdout)).toBe(steady(reference.out));
    expect(lean.stderr.split('\n').filter(Boolean)).toEqual(reference.warnings);
    const hosts = JSON.parse(lean.stdout).hosts;
    expect(hosts[1]).toMatchObject({ reachable: false, unreachable: 'remote command failed' });
    expect(hosts[2]).toMatchObject({ reachable: false, unreachable: 'remote command failed' });
  });

  it("a peer whose entry's lock is held: nothing is started lean, and the full path reads the other peer once", async () => {
    const { lockNow } = await import('../../../service/state/engine/update-now.js');
    await mkdir(stateFile('peers'), { recursive: true });
    const held = lockNow(stateFile('peers/f1.json'));
    expect(held).toBeDefined();
    try {
      const result = await cli();
      expect(result.bundles).toEqual(['status-json-lean', 'status']);
      expect(result.code).toBe(0);
      expect(await sshCalls()).toEqual(['f2.invalid']);
    } finally {
      held?.release();
    }
  });

  it('a file in doubt elsewhere (items.json garbage): each peer read once in all, and the full path answers as it would', async () => {
    await writeFile(stateFile('items.json'), '{"version": 1, "items": [\u001b');
    const copy = join(box.root, 'state-copy');
    await cp(box.state, copy, { recursive: true });
    const result = await cli();
    expect(result.bundles).toEqual(['status-json-lean', 'status']);
    // The lean path's reads, waited for: the full path found their entries fresh and read nothing.
    expect(await sshCalls()).toEqual(['f1.invalid', 'f2.invalid']);
    expect(result.stderr).toMatch(/items\.json.*moved to/);
    const reference = await full(copy);
    expect(result.code).toBe(reference.code);
    expect(result.stdout).toBe(reference.out);
  });
});
