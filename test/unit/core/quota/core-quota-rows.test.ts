import { describe, expect, test } from 'vitest';
import {
  accountErrorRows,
  accountLabel,
  bucketRows,
  claudeRows,
  cleanSnapshot,
  codexRows,
  distinctAccounts,
  fetchErrorRow,
  groupName,
  poolName,
  redactSecrets,
  resetMs,
  usedFromRemaining,
} from '../../../../service/core/quota/quota-rows.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const IN_2H = '2026-03-01T14:00:00Z';
const IN_2H_MS = Date.parse(IN_2H);

describe('Claude windows', () => {
  test('each window the plan has is one row; a null window gives none', () => {
    const answer = {
      five_hour: { utilization: 42.5, resets_at: IN_2H },
      seven_day: { utilization: 100, resets_at: '2026-03-05T00:00:00.123456+00:00' },
      seven_day_opus: null,
      seven_day_sonnet: { utilization: 3, resets_at: null },
      extra_usage: { is_enabled: false },
    };
    expect(claudeRows('me@example.com', answer, NOW)).toEqual([
      {
        pool: 'claude',
        account: 'me@example.com',
        window: 'five_hour',
        used_pct: 42.5,
        resets_ms: IN_2H_MS,
        error: null,
      },
      {
        pool: 'claude',
        account: 'me@example.com',
        window: 'seven_day',
        used_pct: 100,
        resets_ms: Date.parse('2026-03-05T00:00:00.123Z'),
        error: null,
      },
      {
        pool: 'claude',
        account: 'me@example.com',
        window: 'seven_day_sonnet',
        used_pct: 3,
        resets_ms: null,
        error: null,
      },
    ]);
  });

  test('utilization beyond 0..100 is limited to it', () => {
    const rows = claudeRows('a', { five_hour: { utilization: 140 }, seven_day: { utilization: -5 } }, NOW);
    expect(rows.map((r) => r.used_pct)).toEqual([100, 0]);
  });

  test('an answer without any window is a failed account: an error row per window, zero use, no reset', () => {
    const rows = claudeRows('a', { type: 'error', error: { message: 'x' } }, NOW);
    expect(rows.map((r) => r.window)).toEqual([
      'five_hour',
      'seven_day',
      'seven_day_opus',
      'seven_day_sonnet',
    ]);
    expect(rows.every((r) => r.used_pct === 0 && r.resets_ms === null && r.error !== null)).toBe(true);
  });

  test('a utilization that is not a number is that window unknown, not 0% used', () => {
    const rows = claudeRows('a', { five_hour: { utilization: '12' }, seven_day: { utilization: 5 } }, NOW);
    expect(rows[0]).toMatchObject({ window: 'five_hour', used_pct: 0, error: 'utilization is not a number' });
    expect(rows[1]).toMatchObject({ window: 'seven_day', used_pct: 5, error: null });
  });
});

describe('Codex windows', () => {
  test('primary and secondary from the rate limit, reset_at in Unix seconds', () => {
    const answer = {
      plan_type: 'pro',
      rate_limit: {
        primary_window: { used_percent: 7, limit_window_seconds: 18000, reset_at: IN_2H_MS / 1000 },
        secondary_window: { used_percent: 100, reset_after_seconds: 3600 },
      },
    };
    expect(codexRows('you@x.com', answer, NOW)).toEqual([
      {
        pool: 'codex',
        account: 'you@x.com',
        window: 'primary',
        used_pct: 7,
        resets_ms: IN_2H_MS,
        error: null,
      },
      {
        pool: 'codex',
        account: 'you@x.com',
        window: 'secondary',
        used_pct: 100,
        resets_ms: NOW + 3_600_000,
        error: null,
      },
    ]);
  });

  test('no rate limit is a failed account with both windows unknown', () => {
    expect(codexRows('a', { detail: 'Unauthorized' }, NOW)).toEqual(
      accountErrorRows('codex', 'a', ['primary', 'secondary'], 'usage answer has no rate limit'),
    );
  });
});

describe('quota/fetch buckets', () => {
  test('one group: each bucket is a row named by its window', () => {
    const answer = {
      groups: [
        {
          displayName: 'Gemini Pro',
          buckets: [
            { window: 'daily', remainingFraction: 0.25, resetTime: IN_2H },
            { window: 'minute', remainingFraction: 1 },
          ],
        },
      ],
    };
    expect(bucketRows('gemini-cli', 'g@x.com', answer, NOW)).toEqual([
      {
        pool: 'gemini-cli',
        account: 'g@x.com',
        window: 'daily',
        used_pct: 75,
        resets_ms: IN_2H_MS,
        error: null,
      },
      { pool: 'gemini-cli', account: 'g@x.com', window: 'minute', used_pct: 0, resets_ms: null, error: null },
    ]);
  });

  test('several groups: the window is <group>-<window>, the group its lowercase [a-z0-9_-] display name', () => {
    const answer = {
      groups: [
        { displayName: 'Gemini 2.5 Pro', buckets: [{ window: 'daily', remainingFraction: 0 }] },
        { displayName: 'Flash_Lite', buckets: [{ window: 'daily', remainingFraction: 1.5 }] },
        { displayName: '✨', buckets: [{ window: 'daily', remainingFraction: -1 }] },
      ],
    };
    const rows = bucketRows('p', 'a', answer, NOW);
    expect(rows.map((r) => [r.window, r.used_pct])).toEqual([
      ['gemini-2-5-pro-daily', 100],
      ['flash_lite-daily', 0],
      ['group3-daily', 100],
    ]);
  });

  test('used_pct is (1 - remainingFraction) * 100 limited to 0..100; a missing fraction is unknown', () => {
    expect(usedFromRemaining(0.4)).toBeCloseTo(60);
    expect(usedFromRemaining(2)).toBe(0);
    expect(usedFromRemaining(-0.5)).toBe(100);
    expect(usedFromRemaining(Number.NaN)).toBeNull();
    expect(usedFromRemaining(undefined)).toBeNull();
    const rows = bucketRows('p', 'a', { groups: [{ buckets: [{ window: 'w' }] }] }, NOW);
    expect(rows).toEqual([
      {
        pool: 'p',
        account: 'a',
        window: 'w',
        used_pct: 0,
        resets_ms: null,
        error: 'remainingFraction is not a number',
      },
    ]);
  });

  test('an answer without groups is a failed fetch: one error row with the window quota', () => {
    expect(bucketRows('p', 'a', { error: 'x' }, NOW)).toEqual([
      fetchErrorRow('p', 'a', 'quota answer has no groups'),
    ]);
    expect(fetchErrorRow('p', 'a', 'HTTP 502')).toEqual({
      pool: 'p',
      account: 'a',
      window: 'quota',
      used_pct: 0,
      resets_ms: null,
      error: 'HTTP 502',
    });
  });

  test('group names are lowercase [a-z0-9_-] with runs of anything else as one dash', () => {
    expect(groupName('  Claude Opus 4.1 (thinking) ', 0)).toBe('claude-opus-4-1-thinking');
    expect(groupName('a\u001b[31mb', 0)).toBe('ab');
    expect(groupName(null, 1)).toBe('group2');
  });
});

describe('reset times', () => {
  test('RFC 3339 strings, Unix seconds and Unix ms', () => {
    expect(resetMs(IN_2H, NOW)).toBe(IN_2H_MS);
    expect(resetMs(IN_2H_MS / 1000, NOW)).toBe(IN_2H_MS);
    expect(resetMs(IN_2H_MS, NOW)).toBe(IN_2H_MS);
  });

  test('absent, unparsable, non-positive or absurdly far ahead is null', () => {
    for (const value of [
      null,
      undefined,
      '',
      'soon',
      0,
      -5,
      Number.POSITIVE_INFINITY,
      '9999-12-31T00:00:00Z',
      1e300,
    ]) {
      expect(resetMs(value, NOW)).toBeNull();
    }
  });
});

describe('account labels', () => {
  test('email first, then label, account, file name without .json, auth index', () => {
    expect(accountLabel({ email: 'me@x.com', label: 'L', name: 'n.json' })).toBe('me@x.com');
    expect(accountLabel({ label: 'Work', name: 'n.json' })).toBe('Work');
    expect(accountLabel({ name: 'claude-me.json' })).toBe('claude-me');
    expect(accountLabel({ email: '', auth_index: 'a1b2' })).toBe('a1b2');
    expect(accountLabel({})).toBe('unknown');
  });

  test('secrets in a label keep only their first and last four characters', () => {
    expect(accountLabel({ label: 'sk-ant-api03-AbCdEfGh1234567890XyZw' })).toBe('sk-a…XyZw');
    expect(redactSecrets('key AIzaSyA1234567890abcdefgh for me')).toBe('key AIza…efgh for me');
    expect(redactSecrets('a3cc6d1b-2a1b-475b-9b94-54191484abb8')).toBe('a3cc…abb8');
    expect(redactSecrets('Personal Max plan me@example.com')).toBe('Personal Max plan me@example.com');
  });

  test('hostile text in a label is one escape-free line', () => {
    const label = accountLabel({ email: '\u001b]0;pwned\u0007me@x.com\n\u001b[2Jnext\u009b31m' });
    expect(label).toBe('me@x.com next');
  });

  test('labels that repeat in a pool get (2), (3); other pools keep theirs', () => {
    const rows = [
      { pool: 'claude', account: 'a' },
      { pool: 'claude', account: 'a' },
      { pool: 'codex', account: 'a' },
      { pool: 'claude', account: 'a' },
    ];
    expect(distinctAccounts(rows)).toEqual(['a', 'a (2)', 'a', 'a (3)']);
  });

  test('pools are lowercase; an empty provider is unknown', () => {
    expect(poolName('Gemini-CLI')).toBe('gemini-cli');
    expect(poolName('\u001b[1m')).toBe('unknown');
  });
});

describe('a pushed snapshot', () => {
  test('has every text field made one safe line, its numbers and extra fields untouched', () => {
    const dirty = {
      version: 1 as const,
      fetched_ms: NOW,
      source: 'mac\u001b]0;x\u0007-mini',
      extra: { kept: true },
      pools: [
        {
          pool: 'c\u001b[31mlaude',
          account: 'a\nb',
          window: '\u0007five',
          used_pct: 50,
          resets_ms: null,
          error: 'e\u009b2J',
        },
      ],
    };
    expect(cleanSnapshot(dirty)).toEqual({
      version: 1,
      fetched_ms: NOW,
      source: 'mac-mini',
      extra: { kept: true },
      pools: [{ pool: 'claude', account: 'a b', window: 'five', used_pct: 50, resets_ms: null, error: 'e' }],
    });
  });
});
