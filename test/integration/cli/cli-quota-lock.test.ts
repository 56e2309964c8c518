// The shared collection lock, with real processes: a second `quota` never starts a collection of
// its own while one runs, and a collector frozen inside the lock (SIGSTOP) costs the others their
// wait, never their cache or a pushed snapshot.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { runCli, type Sandbox, sandbox, spawnCli } from '../../helpers/cli.js';
import { keyCommand, useFakeCliproxy } from '../quota/quota-fixtures.js';

let box: Sandbox;

const bench = useFakeCliproxy('dogsled-quota-lock-');
beforeEach(async () => {
  box = await sandbox({
    DOGSLED_TEST: '1',
    DOGSLED_TEST_QUOTA_KEY_COMMAND: await keyCommand(bench.dir),
    NODE_EXTRA_CA_CERTS: bench.fake.caPath,
  });
  await writeFile(box.configPath, `[quota]\nmanagement_url = "${bench.fake.origin}"\n`);
  bench.fake.requests.length = 0;
  bench.fake.hold = null;
  // No test here asserts on the fake's scan for the key (cli-quota's does): some 0.1 s of CPU a request.
  bench.fake.scanForKey = false;
});
afterEach(async () => {
  bench.fake.hold = null;
  await box.cleanup();
});

const listings = () => bench.fake.requests.filter((r) => r.path.endsWith('/auth-files')).length;

function holdListings(): () => void {
  let release = (): void => {};
  bench.fake.hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  return () => {
    bench.fake.hold = null;
    release();
  };
}

describe('one collector at a time', () => {
  test('a quota started while another collects waits for it and shows its snapshot', async () => {
    const release = holdListings();
    const first = spawnCli(['quota', '--json', '--refresh'], box.env);
    await bench.fake.listed(1);
    const second = spawnCli(['quota', '--json'], box.env);
    // However long the second takes to start, it never lists the credentials while the first does.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(listings()).toBe(1);
    release();
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(a).toMatchObject({ code: 0, stderr: '' });
    expect(b).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(b.stdout)).toEqual(JSON.parse(a.stdout));
    expect(listings()).toBe(1);
  });

  test('a collector frozen inside the lock: others fall back to the cache naming it; --cached and --store never wait', {
    timeout: 90_000,
  }, async () => {
    const stored = JSON.stringify({ version: 1, fetched_ms: Date.now() - 60_000, source: 'peer', pools: [] });
    expect((await runCli(['quota', '--store'], box.env, { input: stored })).code).toBe(0);
    const release = holdListings();
    const frozen = spawnCli(['quota', '--refresh'], box.env, { timeoutMs: 80_000 });
    await bench.fake.listed(1);
    const pid = frozen.child.pid as number;
    process.kill(pid, 'SIGSTOP');
    try {
      const cached = await runCli(['quota', '--json', '--cached'], box.env);
      expect(cached).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(cached.stdout).source).toBe('peer');
      const newer = JSON.stringify({ version: 1, fetched_ms: Date.now(), source: 'peer2', pools: [] });
      expect((await runCli(['quota', '--store'], box.env, { input: newer })).code).toBe(0);

      const waited = await runCli(['quota', '--json', '--refresh'], box.env, { timeoutMs: 60_000 });
      expect(waited.code).toBe(0);
      expect(JSON.parse(waited.stdout).source).toBe('peer2');
      expect(waited.stderr).toBe(
        `dogsled: warning: quota: lock on quota-collect: timed out after 29s: pid ${pid} holds it and is still running (stopped or stuck?)\n`,
      );
      expect(listings()).toBe(1);
    } finally {
      process.kill(pid, 'SIGCONT');
      release();
    }
    // Thawed past its deadline, the collector gives up and backs off; the pushed snapshot stays.
    const thawed = await frozen.done;
    expect(thawed.code).toBe(0);
    expect(thawed.stderr).toMatch(
      /^dogsled: warning: quota: collection failed, showing the last good snapshot: .*(deadline reached|no answer for 20s)\n$/,
    );
    const after = JSON.parse(await readFile(join(box.state, 'quota.json'), 'utf8'));
    expect(after.source).toBe('peer2');
    const backoff = JSON.parse(await readFile(join(box.state, 'quota-collect.json'), 'utf8'));
    expect(backoff).toMatchObject({ failures: 1 });
  });
});
