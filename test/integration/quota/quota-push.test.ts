// Pushing snapshots to peers and the service's quota worker, with the real `dogsled host
// quota-store` of the built CLI as the peer (LocalTransport with the peer's own state bench.dir), and the
// real `serve` collecting from a fake CLIProxy.

import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import type { QuotaSnapshot } from '../../../service/core/quota/quota-rows.js';
import { quotaWorker } from '../../../service/daemon/quota-worker.js';
import { QuotaPusher } from '../../../service/quota/push.js';
import { statePaths } from '../../../service/state/paths.js';
import { LocalTransport } from '../../../service/transport/local-transport.js';
import type { Transport } from '../../../service/transport/types.js';
import { CLI, exited, sandbox, startCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { everyShape, KEY, NOW, useFakeCliproxy } from './quota-fixtures.js';

const bench = useFakeCliproxy('dogsled-quota-push-');

/** A peer: this build's `host` verbs running with their own state bench.dir. */
async function peer(extra: NodeJS.ProcessEnv = {}): Promise<{
  state: string;
  transport: LocalTransport;
  stored: () => Promise<QuotaSnapshot>;
}> {
  const state = await tempDir('dogsled-quota-peer-');
  const env = { PATH: process.env.PATH, HOME: state, DOGSLED_STATE: state, ...extra };
  return {
    state,
    transport: new LocalTransport({ self: [process.execPath, CLI], env }),
    stored: async () => JSON.parse(await readFile(join(state, 'quota.json'), 'utf8')),
  };
}

const snapshot = (fetched_ms: number): QuotaSnapshot => ({
  version: 1,
  fetched_ms,
  source: 'mac-mini',
  pools: [
    {
      pool: 'codex',
      account: 'a',
      window: 'primary',
      used_pct: 100,
      resets_ms: fetched_ms + 60_000,
      error: null,
    },
  ],
});

describe('pushing to peers', () => {
  test('a snapshot reaches the peer once; an older one never replaces its newer one', async () => {
    const { transport, stored } = await peer();
    let clock = Date.now();
    const pusher = new QuotaPusher({ transport, now: () => clock });
    const target = { host: 'p1', remoteCommand: [] };
    expect(await pusher.push(snapshot(clock), [target])).toEqual([
      { host: 'p1', ok: true, stored: true, error: null, retry_at_ms: null },
    ]);
    expect(await stored()).toEqual(snapshot(clock));
    // Already there: not sent again.
    expect(await pusher.push(snapshot(clock), [target])).toEqual([]);
    // The peer got a newer one meanwhile (another collector): an older push keeps it, and counts as done.
    const other = new QuotaPusher({ transport, now: () => clock });
    await other.push(snapshot(clock + 5_000), [target]);
    clock += 1_000;
    expect(await pusher.push(snapshot(clock), [target])).toEqual([
      { host: 'p1', ok: true, stored: false, error: null, retry_at_ms: null },
    ]);
    expect((await stored()).fetched_ms).toBe(clock + 4_000);
  });

  test('a failed push waits out the backoff before the next try, then succeeds', async () => {
    const { state, transport, stored } = await peer();
    await mkdir(join(state, 'quota.json'));
    let clock = Date.now();
    const pusher = new QuotaPusher({ transport, now: () => clock, random: () => 0.5 });
    const target = { host: 'p1', remoteCommand: [] };
    const [failed] = await pusher.push(snapshot(clock), [target]);
    expect(failed).toMatchObject({ ok: false, stored: false, retry_at_ms: clock + 10_000 });
    expect(failed?.error).toMatch(/quota\.json: it is a directory/);
    expect(pusher.nextRetryAt()).toBe(clock + 10_000);
    clock += 9_999;
    expect(await pusher.push(snapshot(clock - 9_999), [target])).toEqual([]);
    clock += 1;
    const [again] = await pusher.push(snapshot(clock - 10_000), [target]);
    // Twice as long after the second failure in a row.
    expect(again).toMatchObject({ ok: false, retry_at_ms: clock + 20_000 });
    await rm(join(state, 'quota.json'), { recursive: true });
    clock += 20_000;
    expect((await pusher.push(snapshot(clock - 30_000), [target]))[0]).toMatchObject({
      ok: true,
      stored: true,
    });
    expect(pusher.nextRetryAt()).toBeNull();
    expect((await stored()).fetched_ms).toBe(clock - 30_000);
  });

  test("a push under way ends at the service's stop: no failure, no backoff, nothing reported", async () => {
    // The peer's quota-store pauses inside its lock, as a frozen peer would hang the call.
    const hold = {
      DOGSLED_TEST: '1',
      DOGSLED_TEST_LOCK_HOLD_FILE: 'quota.json',
      DOGSLED_TEST_LOCK_HOLD_MS: '600000',
    };
    const { state, transport } = await peer(hold);
    const stop = new AbortController();
    const clock = Date.now();
    const pusher = new QuotaPusher({ transport, now: () => clock, signal: stop.signal });
    const pushed = pusher.push(snapshot(clock), [{ host: 'p1', remoteCommand: [] }]);
    await waitFor(
      'the push inside the peer lock',
      async () => (await stat(join(state, 'quota.json.holding')).catch(() => undefined)) && true,
      { timeoutMs: 15_000 },
    );
    stop.abort();
    expect(await pushed).toEqual([]);
    expect(pusher.nextRetryAt()).toBeNull();
  });
});

describe('the quota worker', () => {
  let state: string;
  const warnings: string[] = [];
  beforeEach(async () => {
    state = await tempDir('dogsled-quota-worker-');
    warnings.length = 0;
    // No case here looks for the key in other processes (quota-collector's does): no /proc scans.
    bench.fake.scanForKey = false;
    bench.fake.accounts = everyShape();
    bench.fake.authFiles = null;
  });

  const deps = (clock: () => number, transport: LocalTransport, hostname = 'mac-mini') => ({
    paths: statePaths(state),
    now: clock,
    warn: (line: string) => warnings.push(line),
    managementUrl: bench.fake.origin,
    env: { DOGSLED_TEST: '1', DOGSLED_TEST_QUOTA_KEY_COMMAND: bench.keyCmd, HOME: bench.dir },
    platform: 'linux' as const,
    hostname,
    ca: bench.fake.ca,
    random: () => 0.5,
    peers: () => [{ host: 'p1', remoteCommand: [] }],
    transport: () => transport,
  });

  test('collects when due, pushes what it collected, and waits until the next refresh', async () => {
    const remote = await peer();
    let clock = NOW;
    const worker = quotaWorker(
      deps(() => clock, remote.transport),
      new AbortController().signal,
    );
    expect(await worker.pass()).toBe(5 * 60_000);
    const local = JSON.parse(await readFile(join(state, 'quota.json'), 'utf8'));
    expect(local).toMatchObject({ fetched_ms: NOW, source: 'mac-mini' });
    expect(await remote.stored()).toEqual(local);
    clock = NOW + 60_000;
    expect(await worker.pass()).toBe(4 * 60_000);
    expect(bench.fake.requests.filter((r) => r.path.endsWith('/auth-files')).length).toBeGreaterThan(0);
    expect(warnings).toEqual([]);
    await worker.close();
  });

  test('a snapshot another collector pushed here is never pushed on', async () => {
    const remote = await peer();
    const worker = quotaWorker(
      { ...deps(() => NOW, remote.transport), managementUrl: bench.fake.origin, env: { HOME: bench.dir } },
      new AbortController().signal,
    );
    await writeFile(join(state, 'quota.json'), JSON.stringify({ ...snapshot(NOW), source: 'other-mac' }));
    await worker.pass();
    await expect(stat(join(remote.state, 'quota.json'))).rejects.toThrow();
  });

  test('a peer list that cannot be read is said once, not every pass, and pushes to none', async () => {
    const remote = await peer();
    let clock = NOW;
    let read = 0;
    const worker = quotaWorker(
      {
        ...deps(() => clock, remote.transport),
        peers: (warn) => {
          read += 1;
          if (read === 1) warn('dogsled: warning: herdr machine list: herdr: not running');
          else throw new Error('config.toml: hosts: not an array');
          return [];
        },
      },
      new AbortController().signal,
    );
    expect(await worker.pass()).toBe(5 * 60_000);
    clock += 60_000;
    expect(await worker.pass()).toBe(4 * 60_000);
    clock += 60_000;
    expect(await worker.pass()).toBe(3 * 60_000);
    expect(read).toBe(3);
    expect(warnings).toEqual([
      'dogsled: warning: herdr machine list: herdr: not running',
      'dogsled serve: quota: peer list: config.toml: hosts: not an array',
    ]);
    await expect(stat(join(remote.state, 'quota.json'))).rejects.toThrow();
  });

  test('a failed peer that leaves the list (disabled) no longer wakes the worker with its backoff', async () => {
    const gone = await peer();
    const kept = await peer();
    await mkdir(join(gone.state, 'quota.json'));
    let clock = NOW;
    let listed = [
      { host: 'gone', remoteCommand: [] },
      { host: 'kept', remoteCommand: [] },
    ];
    // One transport, two peers: each target reaches its own state.
    const transport: Transport = {
      kind: 'local',
      exec: (target, argv, options) =>
        (target.host === 'gone' ? gone : kept).transport.exec(target, argv, options),
      close: async () => {},
    };
    const worker = quotaWorker(
      { ...deps(() => clock, gone.transport), peers: () => listed, transport: () => transport },
      new AbortController().signal,
    );
    // gone fails: the worker wakes at its retry (random 0.5: 10 s).
    expect(await worker.pass()).toBe(10_000);
    listed = listed.filter((p) => p.host === 'kept');
    clock += 20_000;
    expect(await worker.pass()).toBe(5 * 60_000 - 20_000);
    expect((await kept.stored()).fetched_ms).toBe(NOW);
    await worker.close();
  });

  test('a failed collection backs off: the worker wakes at the retry time and warns once', async () => {
    const remote = await peer();
    bench.fake.authFiles = { status: 500, body: { error: 'down' } };
    let clock = NOW;
    const worker = quotaWorker(
      deps(() => clock, remote.transport),
      new AbortController().signal,
    );
    expect(await worker.pass()).toBe(10_000);
    clock += 4_000;
    expect(await worker.pass()).toBe(6_000);
    expect(warnings).toEqual([
      'dogsled serve: quota: collection failed, showing the last good snapshot: auth-files: HTTP 500: down',
      'dogsled serve: quota: the last collection failed 4s ago (auth-files: HTTP 500: down); next try in 6s',
    ]);
    await expect(stat(join(remote.state, 'quota.json'))).rejects.toThrow();
  });
});

describe('dogsled serve', () => {
  test('collects quota on start when a management URL is configured', async () => {
    bench.fake.accounts = everyShape();
    bench.fake.authFiles = null;
    const box = await sandbox({
      DOGSLED_TEST: '1',
      DOGSLED_TEST_QUOTA_KEY_COMMAND: bench.keyCmd,
      NODE_EXTRA_CA_CERTS: bench.fake.caPath,
    });
    await writeFile(box.configPath, `[quota]\nmanagement_url = "${bench.fake.origin}"\n`);
    const serve = startCli(['serve', '--interval', '5'], box.env);
    try {
      const file = join(box.state, 'quota.json');
      await waitFor('quota.json from serve', () => stat(file), { timeoutMs: 20_000 }).catch(
        (error: Error) => {
          throw new Error(`${error.message}\n${serve.output()}`);
        },
      );
      const collected = JSON.parse(await readFile(file, 'utf8'));
      expect(collected.pools.length).toBeGreaterThan(0);
      expect(serve.output()).not.toContain(KEY);
    } finally {
      serve.kill('SIGTERM');
      expect(await exited(serve)).toEqual({ code: 0, signal: null });
      await box.cleanup();
    }
  });
});
