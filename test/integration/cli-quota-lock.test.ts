// The shared collection lock, with real processes: a second `quota` never starts a collection of
// its own while one runs, and a collector frozen inside the lock (SIGSTOP) costs the others their
// wait, never their cache or a pushed snapshot.

import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type FakeCliproxy, startFakeCliproxy } from '../fakes/cliproxy/index.js';
import { runCli, type Sandbox, sandbox, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tree.js';
import { everyShape, KEY, keyCommand } from './quota-fixtures.js';

let dir: string;
let fake: FakeCliproxy;
let box: Sandbox;

beforeAll(async () => {
  dir = await tempDir('dogsled-quota-lock-');
  fake = await startFakeCliproxy({ dir, key: KEY, accounts: everyShape() });
});
afterAll(async () => {
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  box = await sandbox({
    DOGSLED_TEST: '1',
    DOGSLED_TEST_QUOTA_KEY_COMMAND: await keyCommand(dir),
    NODE_EXTRA_CA_CERTS: fake.caPath,
  });
  await writeFile(box.configPath, `[quota]\nmanagement_url = "${fake.origin}"\n`);
  fake.requests.length = 0;
  fake.hold = null;
});
afterEach(async () => {
  fake.hold = null;
  await box.cleanup();
});

const listings = () => fake.requests.filter((r) => r.path.endsWith('/auth-files')).length;

function holdListings(): () => void {
  let release = (): void => {};
  fake.hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  return () => {
    fake.hold = null;
    release();
  };
}

describe('one collector at a time', () => {
  test('a quota started while another collects waits for it and shows its snapshot', async () => {
    const release = holdListings();
    const first = spawnCli(['quota', '--json', '--refresh'], box.env);
    await fake.listed(1);
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
    await fake.listed(1);
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
