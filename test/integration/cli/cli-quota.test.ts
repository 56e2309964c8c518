// `dogsled quota` as a real process against a fake CLIProxy over HTTPS (its test CA trusted through
// NODE_EXTRA_CA_CERTS, never by turning verification off): collection, the cache, the human form,
// the hidden `quota --store`, and bad configuration.

import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { QuotaSnapshotSchema } from '../../../service/state/schemas/quota-schemas.js';
import { runCli, type Sandbox, sandbox, spawnCli } from '../../helpers/cli.js';
import { everyShape, KEY, NOW, RESET_MS, useFakeCliproxy } from '../quota/quota-fixtures.js';

let box: Sandbox;

const bench = useFakeCliproxy('dogsled-cli-quota-');

beforeEach(async () => {
  box = await sandbox({
    DOGSLED_TEST: '1',
    DOGSLED_TEST_QUOTA_KEY_COMMAND: bench.keyCmd,
    DOGSLED_TEST_NOW_MS: String(NOW),
    NODE_EXTRA_CA_CERTS: bench.fake.caPath,
  });
  await writeFile(box.configPath, `[quota]\nmanagement_url = "${bench.fake.origin}"\n`);
  bench.fake.requests.length = 0;
  bench.fake.keySightings.length = 0;
  // The scan for the key costs some 0.1 s of CPU a request: only the test that asserts on it runs it.
  bench.fake.scanForKey = false;
  bench.fake.accounts = everyShape();
  bench.fake.authFiles = null;
  bench.fake.hold = null;
});
afterEach(async () => {
  await box.cleanup();
});

const at = (ms: number) => ({ ...box.env, DOGSLED_TEST_NOW_MS: String(ms) });
const listings = () => bench.fake.requests.filter((r) => r.path.endsWith('/auth-files')).length;

describe('dogsled quota', () => {
  test('--json collects, prints the version-1 snapshot and writes quota.json 0600', async () => {
    const result = await runCli(['quota', '--json'], box.env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const snapshot = QuotaSnapshotSchema.parse(JSON.parse(result.stdout));
    expect(snapshot).toMatchObject({ version: 1, fetched_ms: NOW });
    expect(snapshot.pools).toContainEqual({
      pool: 'claude',
      account: 'me@example.com',
      window: 'five_hour',
      used_pct: 42,
      resets_ms: RESET_MS,
      error: null,
    });
    const file = join(box.state, 'quota.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(snapshot);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  test('the key never appears in any argv or environment during the calls, nor in output or state', async () => {
    bench.fake.scanForKey = true;
    const result = await runCli(['quota', '--refresh'], box.env);
    expect(result.code).toBe(0);
    expect(bench.fake.requests.length).toBeGreaterThan(3);
    // Scanned at every request, while the CLI waited on it: /proc/*/cmdline and /proc/*/environ.
    expect(bench.fake.keySightings).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    const { readdir } = await import('node:fs/promises');
    for (const name of await readdir(box.state)) {
      expect(await readFile(join(box.state, name), 'utf8').catch(() => '')).not.toContain(KEY);
    }
  });

  test('younger than five minutes it reads the cache; older it collects; --refresh always does', async () => {
    await runCli(['quota', '--json'], box.env);
    expect(listings()).toBe(1);
    expect((await runCli(['quota', '--json'], at(NOW + 4 * 60_000))).code).toBe(0);
    expect(listings()).toBe(1);
    expect((await runCli(['quota', '--json', '--refresh'], at(NOW + 4 * 60_000))).code).toBe(0);
    expect(listings()).toBe(2);
    const older = await runCli(['quota', '--json'], at(NOW + 10 * 60_000));
    expect(listings()).toBe(3);
    expect(JSON.parse(older.stdout).fetched_ms).toBe(NOW + 10 * 60_000);
  });

  test('--cached reads only quota.json, even older than 15 minutes', async () => {
    await runCli(['quota'], box.env);
    const result = await runCli(['quota', '--json', '--cached'], at(NOW + 3 * 3_600_000));
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout).fetched_ms).toBe(NOW);
    expect(listings()).toBe(1);
  });

  test('no snapshot at all is the empty version-1 snapshot with fetched_ms 0', async () => {
    const result = await runCli(['quota', '--json', '--cached'], box.env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({ version: 1, fetched_ms: 0, source: '', pools: [] });
    expect((await runCli(['quota', '--cached'], box.env)).stdout).toBe('no quota snapshot yet\n');
  });

  test('human output: each window with its use and reset, the age, unknown rows and exhausted pools', async () => {
    bench.fake.accounts = [
      everyShape()[0] as (typeof bench.fake.accounts)[number],
      ...everyShape().filter((a) => a.auth_index === 'f1' || a.auth_index === 'c2'),
    ];
    await runCli(['quota'], box.env);
    const result = await runCli(['quota'], at(NOW + 90_000));
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^quota from \S+, fetched 90s ago$/);
    expect(lines.slice(1)).toEqual([
      'claude     expired@example.com      five_hour          unknown: usage: HTTP 401',
      '                                    seven_day          unknown: usage: HTTP 401',
      '                                    seven_day_opus     unknown: usage: HTTP 401',
      '                                    seven_day_sonnet   unknown: usage: HTTP 401',
      '           me@example.com           five_hour           42%  resets in 118m',
      '                                    seven_day          100%  resets in 118m',
      '                                    seven_day_opus       0%  no reset time',
      '                                    seven_day_sonnet    13%  resets in 118m',
      'opencode-… opencode-1               quota              unknown: quota/fetch: HT…',
    ]);
    // me@example.com is at 100% for seven_day, but expired@ is unknown: not exhausted.
    expect(result.stdout).not.toContain('exhausted');
    expect(lines.every((line) => line.length <= 80)).toBe(true);
  });

  test('a pool whose every account is full says until when', async () => {
    bench.fake.accounts = [everyShape()[0] as (typeof bench.fake.accounts)[number]];
    const result = await runCli(['quota', '--refresh'], box.env);
    expect(result.stdout).toContain('claude is exhausted: every account is at 100% for 2h\n');
  });

  test('a stale snapshot says so', async () => {
    await runCli(['quota'], box.env);
    const result = await runCli(['quota', '--cached'], at(NOW + 20 * 60_000));
    expect(result.stdout.split('\n')[0]).toMatch(/fetched 20m ago \(stale: older than 15m\)$/);
  });

  test('a failed collection shows the last good snapshot with a warning and exits 0', async () => {
    await runCli(['quota'], box.env);
    bench.fake.authFiles = { status: 503, body: { error: 'maintenance' } };
    const result = await runCli(['quota', '--json'], at(NOW + 6 * 60_000));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).fetched_ms).toBe(NOW);
    expect(result.stderr).toBe(
      'dogsled: warning: quota: collection failed, showing the last good snapshot: auth-files: HTTP 503: maintenance\n',
    );
  });

  test('--cached and --refresh together are one line, exit 2', async () => {
    const result = await runCli(['quota', '--cached', '--refresh'], box.env);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe('dogsled: quota: --cached and --refresh contradict each other: choose one\n');
  });

  test.each([
    ['with a path', 'https://127.0.0.1:1/v0/management'],
    ['with credentials', 'https://admin:secret@127.0.0.1:1'],
    ['over http', 'http://127.0.0.1:1'],
  ])('a management_url %s is one line naming the key, exit 2, nothing written', async (_name, url) => {
    await writeFile(box.configPath, `[quota]\nmanagement_url = "${url}"\n`);
    const result = await runCli(['quota'], box.env);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(
      /^dogsled: quota: config .*: quota\.management_url: expected an https origin .*\n$/,
    );
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(bench.fake.requests).toEqual([]);
    await expect(stat(box.state)).rejects.toThrow();
  });
});

describe('hostile state files', () => {
  test.each([
    ['a directory', (path: string) => mkdir(path)],
    [
      'a FIFO',
      async (path: string) => void (await import('node:child_process')).execFileSync('mkfifo', [path]),
    ],
  ])('quota.json as %s is one line and exit 2, with or without --cached', async (_kind, make) => {
    await mkdir(box.state, { recursive: true });
    await make(join(box.state, 'quota.json'));
    for (const args of [['quota', '--cached'], ['quota']]) {
      const result = await runCli(args, box.env);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(
        /^dogsled: quota: cannot read .*quota\.json: it is a (directory|FIFO), not a regular file\n$/,
      );
    }
  });

  test('quota-collect.json as a directory only costs a warning: quota still collects', async () => {
    await mkdir(join(box.state, 'quota-collect.json'), { recursive: true });
    const result = await runCli(['quota', '--json'], box.env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).fetched_ms).toBe(NOW);
    expect(result.stderr.split('\n')).toEqual([
      expect.stringMatching(/^dogsled: warning: quota: cannot read .*quota-collect\.json: it is a directory/),
      expect.stringMatching(/^dogsled: warning: quota: cannot write .*quota-collect\.json: .*EISDIR/),
      '',
    ]);
  });
});

describe('quota --store', () => {
  const snapshot = (fetched_ms: number, extra: object = {}) =>
    JSON.stringify({
      version: 1,
      fetched_ms,
      source: 'mac-mini',
      pools: [{ pool: 'codex', account: 'a', window: 'primary', used_pct: 10, resets_ms: null, error: null }],
      ...extra,
    });
  const stored = async () => JSON.parse(await readFile(join(box.state, 'quota.json'), 'utf8'));

  test('stores one validated snapshot from stdin; an older one never replaces it', async () => {
    expect(await runCli(['quota', '--store'], box.env, { input: snapshot(NOW - 1000) })).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect((await stored()).fetched_ms).toBe(NOW - 1000);
    expect((await runCli(['quota', '--store'], box.env, { input: snapshot(NOW) })).code).toBe(0);
    const older = await runCli(['quota', '--store'], box.env, { input: snapshot(NOW - 500) });
    expect(older).toMatchObject({ code: 0, stdout: '' });
    expect(older.stderr).toBe(
      `dogsled: quota --store: kept the stored snapshot: it is as new or newer (fetched_ms ${NOW})\n`,
    );
    expect((await stored()).fetched_ms).toBe(NOW);
  });

  test('a locally collected snapshot is not replaced by an older pushed one either', async () => {
    await runCli(['quota'], box.env);
    await runCli(['quota', '--store'], box.env, { input: snapshot(NOW - 1) });
    expect(await stored()).toMatchObject({
      fetched_ms: NOW,
      source: expect.not.stringMatching(/^mac-mini$/),
    });
  });

  test.each([
    ['not JSON', '{"version":1,', /^dogsled: quota: snapshot on stdin: not JSON: /],
    ['nothing', '', /^dogsled: quota: snapshot on stdin: nothing was sent\n$/],
    ['a version 2', snapshot(NOW, { version: 2 }), /^dogsled: quota: snapshot on stdin: version: /],
    [
      'a used_pct above 100',
      snapshot(NOW).replace('"used_pct":10', '"used_pct":101'),
      /^dogsled: quota: snapshot on stdin: pools\.0\.used_pct: /,
    ],
    [
      'a snapshot from next year',
      snapshot(NOW + 365 * 86_400_000),
      /^dogsled: quota: snapshot refused: fetched_ms is \d+s ahead of this host's clock\n$/,
    ],
    [
      'the empty snapshot',
      snapshot(0),
      /^dogsled: quota: snapshot refused: fetched_ms is 0: an empty snapshot\n$/,
    ],
  ])('%s is one line, exit 2, nothing written', async (_name, input, message) => {
    const result = await runCli(['quota', '--store'], box.env, { input });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(message);
    await expect(stat(join(box.state, 'quota.json'))).rejects.toThrow();
  });

  test('more than 4 MiB on stdin is refused without storing', async () => {
    const input = snapshot(NOW, { padding: 'x'.repeat(5 * 1024 * 1024) });
    const { child, done } = spawnCli(['quota', '--store'], box.env, { input });
    // The command stops reading at the limit: the rest of the input meets a closed pipe.
    child.stdin?.on('error', () => {});
    const result = await done;
    expect(result).toMatchObject({ code: 2 });
    expect(result.stderr).toBe('dogsled: quota: snapshot on stdin: larger than 4194304 bytes\n');
  });

  test('hostile text in a pushed snapshot is stripped before it is stored or shown', async () => {
    const hostile = JSON.stringify({
      version: 1,
      fetched_ms: NOW,
      source: 'mac\u001b]0;owned\u0007',
      pools: [
        {
          pool: 'codex\u001b[31m',
          account: 'a\u009b2Jb',
          window: 'prim\nary',
          used_pct: 5,
          resets_ms: null,
          error: null,
        },
        {
          pool: 'codex',
          account: 'c',
          window: 'w',
          used_pct: 0,
          resets_ms: null,
          error: 'bad\u001b[2Jthing',
        },
      ],
    });
    expect((await runCli(['quota', '--store'], box.env, { input: hostile })).code).toBe(0);
    const text = await readFile(join(box.state, 'quota.json'), 'utf8');
    expect(text).not.toMatch(/\\u00(1b|9b|07|0a)|[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.parse(text).pools[0]).toMatchObject({ pool: 'codex', account: 'ab', window: 'prim ary' });
    const shown = await runCli(['quota', '--cached'], box.env);
    expect(shown.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(shown.stdout).toContain('unknown: badthing');
  });

  test('--store takes no other flag', async () => {
    const result = await runCli(['quota', '--store', '--json'], box.env, { input: snapshot(NOW) });
    expect(result).toMatchObject({ code: 2 });
    expect(result.stderr).toBe(
      'dogsled: quota: --store reads one snapshot from stdin and takes no other flag\n',
    );
  });

  test('host quota-store is the same writer, and answers what it did', async () => {
    const first = await runCli(['host', 'quota-store'], box.env, { input: snapshot(NOW) });
    expect(first).toMatchObject({ code: 0 });
    expect(JSON.parse(first.stdout)).toEqual({ stored: true, fetched_ms: NOW });
    const older = await runCli(['host', 'quota-store'], box.env, { input: snapshot(NOW - 1) });
    expect(JSON.parse(older.stdout)).toEqual({ stored: false, fetched_ms: NOW });
    const bad = await runCli(['host', 'quota-store'], box.env, { input: '[]' });
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toMatch(/^dogsled: host: quota-store: snapshot on stdin: /);
  });
});
