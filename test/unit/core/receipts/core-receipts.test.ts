// The receipt rules: which price a model id gets, what its usage costs, how a receipt reads, and
// that unknown usage is unknown (never 0) and a hostile model name is shown escape-free.
import { describe, expect, it } from 'vitest';
import {
  modelPrice,
  priceTable,
  SHIPPED_AS_OF,
  SHIPPED_PRICES,
} from '../../../../service/core/receipts/prices.js';
import {
  childReceipt,
  receiptLine,
  receiptOf,
  receiptText,
  tokensText,
  unknownReceipt,
  usdText,
} from '../../../../service/core/receipts/receipt.js';
import { tokenCount, tokenCounts, UsageTally } from '../../../../service/core/receipts/usage.js';

const use = (model: string, input: number, output: number, cache_read = 0, cache_write = 0, turns = 1) => ({
  model,
  input,
  output,
  cache_read,
  cache_write,
  turns,
});

describe('the price of a model', () => {
  it('drops a provider prefix and a date suffix, and takes the longest key the id starts with', () => {
    expect(modelPrice(SHIPPED_PRICES, 'claude-sonnet-4-5-20250929')).toEqual(
      SHIPPED_PRICES.models['claude-sonnet-4-5'],
    );
    expect(modelPrice(SHIPPED_PRICES, 'anthropic/claude-opus-4-5')?.input).toBe(5);
    // opus-4 and opus-4-5 differ threefold: the longer key wins.
    expect(modelPrice(SHIPPED_PRICES, 'claude-opus-4-20250514')?.input).toBe(15);
    expect(modelPrice(SHIPPED_PRICES, 'gpt-5-codex-high')).toEqual(SHIPPED_PRICES.models['gpt-5-codex']);
    expect(modelPrice(SHIPPED_PRICES, 'gpt-5.1-codex-mini')?.output).toBe(2);
    expect(modelPrice(SHIPPED_PRICES, 'GPT-5')?.input).toBe(1.25);
  });

  it('has none for a model it does not know, nor for a prefix that is not a whole word', () => {
    expect(modelPrice(SHIPPED_PRICES, 'llama-3-70b')).toBeUndefined();
    expect(modelPrice(SHIPPED_PRICES, 'o3x')).toBeUndefined();
    expect(modelPrice(SHIPPED_PRICES, '__proto__')).toBeUndefined();
  });

  it("lays the config's models over the shipped ones, dated by the config", () => {
    const table = priceTable({
      as_of: '2026-02-01',
      models: { 'llama-3-70b': { input: 1, output: 2, cache_read: 1, cache_write: 1 } },
    });
    expect(table.as_of).toBe('2026-02-01');
    expect(modelPrice(table, 'llama-3-70b')?.output).toBe(2);
    expect(modelPrice(table, 'gpt-5')?.input).toBe(1.25);
    expect(priceTable({ as_of: null, models: {} })).toBe(SHIPPED_PRICES);
  });
});

describe('a receipt', () => {
  it('prices each kind of token per model and sums the models', () => {
    // Sonnet: 1M input $3, 100k output $1.50, 2M cache reads $0.60, 100k cache writes $0.375.
    const receipt = receiptOf(
      [
        use('claude-sonnet-4-5-20250929', 1_000_000, 100_000, 2_000_000, 100_000, 7),
        use('gpt-5', 0, 1_000_000, 0, 0, 2),
      ],
      SHIPPED_PRICES,
      65_000,
    );
    expect(receipt).toMatchObject({
      tokens: 4_200_000,
      usd: 15.475,
      turns: 9,
      model: 'gpt-5',
      prices_as_of: SHIPPED_AS_OF,
      wall_ms: 65_000,
    });
    expect(receipt.models.map((m) => [m.model, m.usd])).toEqual([
      ['gpt-5', 10],
      ['claude-sonnet-4-5-20250929', 5.475],
    ]);
    expect(receiptText(receipt)).toBe('4.2M tok · $15.48');
    expect(receiptLine(receipt)).toBe(`4.2M tok · $15.48 at ${SHIPPED_AS_OF} prices, gpt-5`);
  });

  it('is unknown, never 0, without usage; its cost is unknown when a model has no price', () => {
    expect(receiptOf([], SHIPPED_PRICES, 10)).toEqual(unknownReceipt(10));
    expect(childReceipt(null, SHIPPED_PRICES, 1000, 4000)).toMatchObject({
      tokens: null,
      usd: null,
      wall_ms: 3000,
    });
    expect(receiptText(childReceipt(null, SHIPPED_PRICES, 0, 0))).toBe('usage unknown');
    expect(receiptText(null)).toBe('usage unknown');
    const mixed = receiptOf([use('gpt-5', 10, 10), use('mystery-1', 10, 10)], SHIPPED_PRICES, null);
    expect(mixed).toMatchObject({ tokens: 40, usd: null, prices_as_of: null });
    expect(receiptText(mixed)).toBe('40 tok · cost unknown');
  });

  it('shows a model name from a transcript escape-free, on one line, bounded', () => {
    const hostile = `claude-\u001b]0;pwned\u0007sonnet\n\u001b[2Jx${'y'.repeat(500)}`;
    const receipt = receiptOf([use(hostile, 1, 1)], SHIPPED_PRICES, null);
    expect(receipt.model).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(receipt.model?.length).toBeLessThanOrEqual(80);
    expect(receiptLine({ ...receipt, model: '\u001b[31mred\u001b[0m' })).toMatch(/, red$/);
  });

  it('reads token counts and dollars briefly', () => {
    expect([950, 12_400, 999_999, 1_250_000, 42_000_000, 3_400_000_000].map(tokensText)).toEqual([
      '950',
      '12k',
      '1M',
      '1.3M',
      '42M',
      '3.4B',
    ]);
    expect([0, 0.001, 0.31, 12.4].map(usdText)).toEqual(['$0.00', '<$0.01', '$0.31', '$12.40']);
  });
});

describe('token counts from a transcript', () => {
  it('takes only plausible counts: absent is 0, garbage is nothing', () => {
    expect([undefined, null, 0, 12].map(tokenCount)).toEqual([0, 0, 0, 12]);
    for (const bad of [-1, 1.5, 1e300, Number.NaN, '12', 200_000_000, true, {}])
      expect(tokenCount(bad)).toBeUndefined();
    expect(tokenCounts({ input: 1, output: '2', cache_read: 0, cache_write: 0 })).toBeUndefined();
  });

  it('adds up per model', () => {
    const tally = new UsageTally();
    tally.add('a', { input: 1, output: 2, cache_read: 3, cache_write: 4 });
    tally.add('a', { input: 1, output: 2, cache_read: 3, cache_write: 4 });
    tally.add('b', { input: 5, output: 0, cache_read: 0, cache_write: 0 });
    expect(tally.models()).toEqual([
      { model: 'a', input: 2, output: 4, cache_read: 6, cache_write: 8, turns: 2 },
      { model: 'b', input: 5, output: 0, cache_read: 0, cache_write: 0, turns: 1 },
    ]);
  });
});
