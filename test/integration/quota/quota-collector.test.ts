// The quota collector against a fake CLIProxy on loopback HTTPS with a test CA: every row shape,
// failures kept per account, the key only in the management requests' header, certificates always
// verified, backoff after a failed collection.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import type { QuotaRow } from '../../../service/core/quota/quota-rows.js';
import { readQuota } from '../../../service/quota/quota-store.js';
import { type QuotaIO, refreshQuota } from '../../../service/quota/refresh.js';
import { statePaths } from '../../../service/state/paths.js';
import { QuotaSnapshotSchema } from '../../../service/state/schemas/quota-schemas.js';
import { tempDir } from '../../helpers/tree.js';
import { everyShape, KEY, keyCommand, NOW, RESET_MS, useFakeCliproxy } from './quota-fixtures.js';

const warnings: string[] = [];
let clock = NOW;

const bench = useFakeCliproxy('dogsled-quota-');

let state: string;
beforeEach(async () => {
  state = await tempDir('dogsled-quota-state-');
  bench.fake.requests.length = 0;
  // The key scan reads two /proc files of every process at each request: only the key's test, which
  // runs the same refresh as the others, turns it on.
  bench.fake.scanForKey = false;
  bench.fake.accounts = everyShape();
  bench.fake.authFiles = null;
  warnings.length = 0;
  clock = NOW;
});

function io(overrides: Partial<QuotaIO> = {}): QuotaIO {
  return {
    paths: statePaths(state),
    now: () => clock,
    warn: (line) => warnings.push(line),
    managementUrl: bench.fake.origin,
    env: { DOGSLED_TEST: '1', DOGSLED_TEST_QUOTA_KEY_COMMAND: bench.keyCmd, HOME: bench.dir },
    platform: 'linux',
    hostname: 'mac-mini',
    ca: bench.fake.ca,
    random: () => 0.5,
    ...overrides,
  };
}

const rowsOf = (rows: QuotaRow[], pool: string) => rows.filter((row) => row.pool === pool);

describe('collection against CLIProxy', () => {
  test('every row shape of the spec, from one collection', async () => {
    const outcome = await refreshQuota(io(), 'refresh');
    expect(outcome).toMatchObject({ collected: true, note: null });
    const { snapshot } = outcome;
    expect(QuotaSnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot).toMatchObject({ version: 1, fetched_ms: NOW, source: 'mac-mini' });

    expect(rowsOf(snapshot.pools, 'claude')).toEqual([
      ...['five_hour', 'seven_day', 'seven_day_opus', 'seven_day_sonnet'].map((window) => ({
        pool: 'claude',
        account: 'expired@example.com',
        window,
        used_pct: 0,
        resets_ms: null,
        error: 'usage: HTTP 401',
      })),
      {
        pool: 'claude',
        account: 'me@example.com',
        window: 'five_hour',
        used_pct: 42,
        resets_ms: RESET_MS,
        error: null,
      },
      {
        pool: 'claude',
        account: 'me@example.com',
        window: 'seven_day',
        used_pct: 100,
        resets_ms: RESET_MS,
        error: null,
      },
      {
        pool: 'claude',
        account: 'me@example.com',
        window: 'seven_day_opus',
        used_pct: 0,
        resets_ms: null,
        error: null,
      },
      {
        pool: 'claude',
        account: 'me@example.com',
        window: 'seven_day_sonnet',
        used_pct: 12.5,
        resets_ms: RESET_MS,
        error: null,
      },
    ]);
    expect(rowsOf(snapshot.pools, 'codex')).toEqual([
      {
        pool: 'codex',
        account: 'you@example.com',
        window: 'primary',
        used_pct: 7,
        resets_ms: RESET_MS,
        error: null,
      },
      {
        pool: 'codex',
        account: 'you@example.com',
        window: 'secondary',
        used_pct: 30,
        resets_ms: NOW + 600_000,
        error: null,
      },
    ]);
    expect(rowsOf(snapshot.pools, 'gemini-cli')).toEqual([
      {
        pool: 'gemini-cli',
        account: 'g@example.com',
        window: 'gemini-2-5-pro-daily',
        used_pct: 75,
        resets_ms: RESET_MS,
        error: null,
      },
      {
        pool: 'gemini-cli',
        account: 'g@example.com',
        window: 'flash-daily',
        used_pct: 0,
        resets_ms: null,
        error: null,
      },
    ]);
    // One group: the bucket window alone; a secret-looking label redacted.
    expect(rowsOf(snapshot.pools, 'kimi')).toEqual([
      { pool: 'kimi', account: 'sk-k…CDEF', window: 'weekly', used_pct: 50, resets_ms: null, error: null },
    ]);
    // A failed fetch: one row, window quota, zero use, no reset, CLIProxy's reason without escapes.
    expect(rowsOf(snapshot.pools, 'opencode-go')).toEqual([
      {
        pool: 'opencode-go',
        account: 'opencode-1',
        window: 'quota',
        used_pct: 0,
        resets_ms: null,
        error: 'quota/fetch: HTTP 502: failed to fetch quota: upstream said no',
      },
    ]);
    // Disabled credentials and providers without supports_quota are never read.
    expect(snapshot.pools.some((row) => row.account === 'off@example.com' || row.pool === 'qwen')).toBe(
      false,
    );
    expect(await readQuota(io())).toEqual(snapshot);
  });

  test('CLIProxy is asked the way its management API documents, the key only in the Authorization header', async () => {
    bench.fake.scanForKey = true;
    bench.fake.keySightings.length = 0;
    await refreshQuota(io(), 'refresh');
    expect(bench.fake.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
    const calls = bench.fake.requests.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body ?? null)}`);
    expect(calls).toContain('GET /v0/management/auth-files null');
    expect(calls).toContain('POST /v0/management/quota/fetch {"auth_index":"g1"}');
    const claude = bench.fake.requests.find((r) => (r.body as { auth_index?: string })?.auth_index === 'c1');
    expect(claude).toMatchObject({
      path: '/v0/management/api-call',
      body: {
        auth_index: 'c1',
        method: 'GET',
        url: 'https://api.anthropic.com/api/oauth/usage',
        header: { Authorization: 'Bearer $TOKEN$', 'anthropic-beta': 'oauth-2025-04-20' },
      },
    });
    const codex = bench.fake.requests.find((r) => (r.body as { auth_index?: string })?.auth_index === 'x1');
    expect(codex?.body).toMatchObject({
      url: 'https://chatgpt.com/backend-api/wham/usage',
      header: { Authorization: 'Bearer $TOKEN$', 'ChatGPT-Account-Id': 'acct-1' },
    });
    // Only the management requests carry the key; the bodies never do.
    expect(JSON.stringify(bench.fake.requests.map((r) => r.body))).not.toContain(KEY);
    expect(bench.fake.keySightings).toEqual([]);
  });

  test('a certificate from a CA nobody trusts is refused: verification is never switched off', async () => {
    const outcome = await refreshQuota(io({ ca: undefined }), 'refresh');
    expect(outcome.collected).toBe(false);
    expect(outcome.note).toMatch(
      /^collection failed, showing the last good snapshot: auth-files: .*certificate/i,
    );
    expect(bench.fake.requests).toEqual([]);
  });

  test('a failed collection keeps the last good snapshot and backs off; --refresh still forces', async () => {
    const good = (await refreshQuota(io(), 'refresh')).snapshot;
    bench.fake.authFiles = { status: 500, body: { error: `internal: key ${KEY} rejected` } };
    clock = NOW + 6 * 60_000;
    const failed = await refreshQuota(io(), 'auto');
    expect(failed).toMatchObject({ collected: false, snapshot: good, retry_at_ms: clock + 10_000 });
    // The key CLIProxy echoed back never reaches the note, the state or a warning.
    expect(failed.note).toBe(
      'collection failed, showing the last good snapshot: auth-files: HTTP 500: internal: key [management key] rejected',
    );
    const backoff = JSON.parse(await readFile(join(state, 'quota-collect.json'), 'utf8'));
    expect(backoff).toMatchObject({ version: 1, failures: 1, retry_at_ms: clock + 10_000 });
    const listed = bench.fake.requests.length;

    clock += 5_000;
    const waiting = await refreshQuota(io(), 'auto');
    expect(waiting.note).toMatch(
      /^the last collection failed 5s ago \(auth-files: HTTP 500: .*\); next try in 5s$/,
    );
    expect(bench.fake.requests.length).toBe(listed);

    const forced = await refreshQuota(io(), 'refresh');
    expect(forced.collected).toBe(false);
    const again = JSON.parse(await readFile(join(state, 'quota-collect.json'), 'utf8'));
    // The second failure in a row waits twice as long.
    expect(again).toMatchObject({ failures: 2, retry_at_ms: clock + 20_000 });

    bench.fake.authFiles = null;
    clock = again.retry_at_ms;
    const recovered = await refreshQuota(io(), 'auto');
    expect(recovered.collected).toBe(true);
    expect(JSON.parse(await readFile(join(state, 'quota-collect.json'), 'utf8'))).toMatchObject({
      failures: 0,
    });
    for (const file of await readdir(state)) {
      const text = await readFile(join(state, file), 'utf8').catch(() => '');
      expect(text).not.toContain(KEY);
    }
    expect(warnings.join('\n')).not.toContain(KEY);
  });

  test('without --refresh a snapshot younger than five minutes is not collected again', async () => {
    await refreshQuota(io(), 'auto');
    const listed = bench.fake.requests.length;
    clock = NOW + 4 * 60_000;
    expect((await refreshQuota(io(), 'auto')).collected).toBe(false);
    expect(bench.fake.requests.length).toBe(listed);
    clock = NOW + 5 * 60_000;
    expect((await refreshQuota(io(), 'auto')).collected).toBe(true);
  });

  test('--cached reads quota.json only, however old, and never runs the key command', async () => {
    await refreshQuota(io(), 'auto');
    const runs = (await readFile(join(bench.dir, 'key-runs'), 'utf8')).split('\n').length;
    clock = NOW + 24 * 3_600_000;
    const cached = await refreshQuota(io(), 'cached');
    expect(cached).toMatchObject({ collected: false, note: null, snapshot: { fetched_ms: NOW } });
    expect((await readFile(join(bench.dir, 'key-runs'), 'utf8')).split('\n').length).toBe(runs);
  });

  test('Linux never reads the key: without the test key command the cache answers', async () => {
    const before = await readFile(join(bench.dir, 'key-runs'), 'utf8').catch(() => '');
    const outcome = await refreshQuota(
      io({ env: { HOME: bench.dir, DOGSLED_TEST_QUOTA_KEY_COMMAND: bench.keyCmd } }),
      'refresh',
    );
    expect(outcome).toMatchObject({ collected: false, snapshot: { fetched_ms: 0, pools: [] } });
    expect(outcome.note).toBe('only macOS collects quota; this host reads its cached snapshot');
    expect(await readFile(join(bench.dir, 'key-runs'), 'utf8').catch(() => '')).toBe(before);
    expect(bench.fake.requests).toEqual([]);
  });

  test('no management URL means the cache, whatever the platform', async () => {
    const outcome = await refreshQuota(io({ managementUrl: null, platform: 'darwin' }), 'refresh');
    expect(outcome.note).toBe('no [quota] management_url is configured on this host');
    expect(bench.fake.requests).toEqual([]);
  });

  test('an unreadable key means the cache, with why, and no request at all', async () => {
    const broken = join(bench.dir, 'no-such-key-command');
    const outcome = await refreshQuota(
      io({ env: { DOGSLED_TEST: '1', DOGSLED_TEST_QUOTA_KEY_COMMAND: broken } }),
      'refresh',
    );
    expect(outcome).toMatchObject({ collected: false });
    expect(outcome.note).toMatch(/^the test key command is unreadable: cannot run it \(ENOENT\)$/);
    expect(bench.fake.requests).toEqual([]);
  });

  test('a key with a line break inside is not a key: nothing is sent', async () => {
    const odd = await keyCommand(await tempDir('dogsled-odd-key-'), 'abc\ndef');
    const outcome = await refreshQuota(
      io({ env: { DOGSLED_TEST: '1', DOGSLED_TEST_QUOTA_KEY_COMMAND: odd } }),
      'refresh',
    );
    expect(outcome.note).toBe('the test key command is unreadable: it holds characters a key cannot have');
    expect(bench.fake.requests).toEqual([]);
  });

  test('a wrong key fails the collection without quoting it', async () => {
    const wrong = await keyCommand(await tempDir('dogsled-wrong-key-'), 'wrong-key-value-123');
    const outcome = await refreshQuota(
      io({ env: { DOGSLED_TEST: '1', DOGSLED_TEST_QUOTA_KEY_COMMAND: wrong } }),
      'refresh',
    );
    expect(outcome.note).toBe(
      'collection failed, showing the last good snapshot: auth-files: HTTP 401: invalid management key',
    );
  });

  test('hostile labels, providers and errors are stripped to one plain line each', async () => {
    bench.fake.accounts = [
      {
        auth_index: 'h1',
        provider: 'Evil\u001b]0;title\u0007Plug',
        email: '\u001b[2Jme@x.com\r\nFAKE ROW',
        supports_quota: true,
        quota: {
          status: 200,
          body: {
            groups: [
              { displayName: 'g', buckets: [{ window: 'da\u001b[31mily\u009b2J', remainingFraction: 0.5 }] },
            ],
          },
        },
      },
      {
        auth_index: 'h2',
        provider: 'claude',
        email: 'x@y.z',
        usage: { status: 200, body: { five_hour: { utilization: 1, resets_at: '\u001b[31m' } } },
      },
      {
        auth_index: 'h3',
        provider: 'zz',
        email: 'e@x.com',
        supports_quota: true,
        quota: {
          status: 500,
          body: { error: `boom\u001b]8;;http://evil\u0007link\u001b]8;;\u0007\n${'x'.repeat(5000)}` },
        },
      },
    ];
    const { snapshot } = await refreshQuota(io(), 'refresh');
    const rows = (pool: string) => snapshot.pools.filter((row) => row.pool === pool);
    expect(rows('evilplug')[0]).toMatchObject({
      pool: 'evilplug',
      account: 'me@x.com FAKE ROW',
      window: 'daily',
    });
    expect(rows('claude')[0]).toMatchObject({ pool: 'claude', window: 'five_hour', resets_ms: null });
    const error = rows('zz')[0]?.error ?? '';
    expect(error.startsWith('quota/fetch: HTTP 500: boomlink x')).toBe(true);
    expect(error.length).toBeLessThanOrEqual(300);
    expect(JSON.stringify(snapshot)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});
