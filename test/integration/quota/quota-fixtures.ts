// Shared pieces of the quota tests: a management key and the test key command that prints it (as
// `security … -w` does), and CLIProxy accounts covering every row shape of the spec.

import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type FakeAccount, type FakeCliproxy, startFakeCliproxy } from '../../fakes/cliproxy/index.js';
import { tempDir } from '../../helpers/tree.js';

/** Unmistakable in any argv, environment, log or file it should never reach. */
export const KEY = 'mgmt-KEY-7f3a9c1e5b2d8e4f6a0c';

export const RESET_ISO = '2026-03-01T14:00:00Z';
export const RESET_MS = Date.parse(RESET_ISO);
/** Before every reset time of the fixtures. */
export const NOW = Date.parse('2026-03-01T12:00:00Z');

/** An executable that prints the key on stdout and notes each run in `<dir>/key-runs`. */
export async function keyCommand(dir: string, key = KEY): Promise<string> {
  const path = join(dir, 'print-key');
  const runs = join(dir, 'key-runs');
  await writeFile(path, `#!/bin/sh\necho run >> '${runs}'\nprintf '%s\\n' '${key}'\n`);
  await chmod(path, 0o755);
  return path;
}

/** One account of each shape: Claude, Codex, a plugin with groups, failures of each kind. */
export function everyShape(): FakeAccount[] {
  return [
    {
      auth_index: 'c1',
      provider: 'claude',
      email: 'me@example.com',
      usage: {
        status: 200,
        body: {
          five_hour: { utilization: 42, resets_at: RESET_ISO },
          seven_day: { utilization: 100, resets_at: RESET_ISO },
          seven_day_opus: { utilization: 0, resets_at: null },
          seven_day_sonnet: { utilization: 12.5, resets_at: RESET_ISO },
        },
      },
    },
    {
      auth_index: 'x1',
      provider: 'codex',
      email: 'you@example.com',
      id_token: { chatgpt_account_id: 'acct-1' },
      usage: {
        status: 200,
        body: {
          rate_limit: {
            primary_window: { used_percent: 7, reset_at: RESET_MS / 1000 },
            secondary_window: { used_percent: 30, reset_after_seconds: 600 },
          },
        },
      },
    },
    {
      auth_index: 'g1',
      provider: 'Gemini-CLI',
      email: 'g@example.com',
      supports_quota: true,
      quota: {
        status: 200,
        body: {
          groups: [
            {
              displayName: 'Gemini 2.5 Pro',
              buckets: [{ window: 'daily', remainingFraction: 0.25, resetTime: RESET_ISO }],
            },
            { displayName: 'Flash', buckets: [{ window: 'daily', remainingFraction: 1 }] },
          ],
        },
      },
    },
    {
      auth_index: 'k1',
      provider: 'kimi',
      label: 'sk-kimi-0123456789abcdefABCDEF',
      supports_quota: true,
      quota: {
        status: 200,
        body: { groups: [{ displayName: 'Only', buckets: [{ window: 'weekly', remainingFraction: 0.5 }] }] },
      },
    },
    // A failed fetch: one error row, window quota.
    {
      auth_index: 'f1',
      provider: 'opencode-go',
      name: 'opencode-1.json',
      supports_quota: true,
      quota: { status: 502, body: { error: 'failed to fetch quota: upstream said \u001b[31mno\u001b[0m' } },
    },
    // A failed account: error rows for each window.
    {
      auth_index: 'c2',
      provider: 'claude',
      email: 'expired@example.com',
      usage: { status: 401, body: { error: 'token expired' } },
    },
    // Never read: disabled, or a provider CLIProxy does not mark supports_quota.
    { auth_index: 'd1', provider: 'claude', email: 'off@example.com', disabled: true },
    { auth_index: 'n1', provider: 'qwen', email: 'q@example.com' },
  ];
}

export interface QuotaBench {
  /** Holds the fake's certificates and the key command. */
  dir: string;
  fake: FakeCliproxy;
  keyCmd: string;
}

/** A fake CLIProxy with every row shape and the key command, for one test file; stopped after it. */
export function useFakeCliproxy(prefix: string): QuotaBench {
  const bench = {} as QuotaBench;
  beforeAll(async () => {
    bench.dir = await tempDir(prefix);
    bench.fake = await startFakeCliproxy({ dir: bench.dir, key: KEY, accounts: everyShape() });
    bench.keyCmd = await keyCommand(bench.dir);
  });
  afterAll(async () => {
    await bench.fake?.close();
    await rm(bench.dir, { recursive: true, force: true });
  });
  return bench;
}
