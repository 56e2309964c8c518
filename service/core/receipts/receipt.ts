// A child's receipt: what its transcript says it used, per model, and what that would cost at the
// price table's prices. Usage a transcript does not record is unknown (null), never 0, and so is
// the cost of a model the table does not price. Model names come from transcripts: they are made
// escape-free one-liners here, once, for every renderer and file. Pure.

import { clip, plainLine } from '../text/clean.js';
import { modelPrice, type PriceTable } from './prices.js';
import { type ModelUsage, type TokenCounts, totalTokens } from './usage.js';

/** Model names are ids such as `claude-sonnet-4-5-20250929`; anything longer is cut. */
export const MODEL_NAME_MAX = 80;
/** Most models one receipt lists: a session switches models a few times, not hundreds. */
const MODELS_MAX = 16;

export type ModelReceipt = TokenCounts & {
  model: string;
  turns: number;
  /** The estimate in USD; null when the table has no price for the model. */
  usd: number | null;
};

export type Receipt = {
  /** Every token of every model (input, output, cache reads and writes); null: unknown. */
  tokens: number | null;
  /** The estimate in USD; null when usage is unknown or a model used has no price. */
  usd: number | null;
  /** Model responses recorded; null: unknown. */
  turns: number | null;
  /** The model that wrote the most output; null: unknown. */
  model: string | null;
  models: ModelReceipt[];
  /** The date of the prices the estimate used; null without an estimate. */
  prices_as_of: string | null;
  /** From the child's start to its end. */
  wall_ms: number | null;
};

export function unknownReceipt(wallMs: number | null): Receipt {
  return {
    tokens: null,
    usd: null,
    turns: null,
    model: null,
    models: [],
    prices_as_of: null,
    wall_ms: wallMs,
  };
}

/** The receipt of a session's usage; no usage at all is an unknown receipt. */
export function receiptOf(usage: readonly ModelUsage[], table: PriceTable, wallMs: number | null): Receipt {
  const merged = new Map<string, ModelUsage>();
  for (const entry of usage) {
    const model = modelName(entry.model);
    const seen = merged.get(model);
    merged.set(
      model,
      seen === undefined
        ? { ...entry, model }
        : {
            model,
            input: seen.input + entry.input,
            output: seen.output + entry.output,
            cache_read: seen.cache_read + entry.cache_read,
            cache_write: seen.cache_write + entry.cache_write,
            turns: seen.turns + entry.turns,
          },
    );
  }
  const models = [...merged.values()]
    .filter((entry) => entry.turns > 0)
    .sort((a, b) => b.output - a.output || totalTokens(b) - totalTokens(a))
    .slice(0, MODELS_MAX)
    .map((entry): ModelReceipt => ({ ...entry, usd: costOf(entry, table) }));
  if (models.length === 0) return unknownReceipt(wallMs);
  const priced = models.every((entry) => entry.usd !== null);
  return {
    tokens: models.reduce((sum, entry) => sum + totalTokens(entry), 0),
    usd: priced ? roundUsd(models.reduce((sum, entry) => sum + (entry.usd ?? 0), 0)) : null,
    turns: models.reduce((sum, entry) => sum + entry.turns, 0),
    model: models[0]?.model ?? null,
    models,
    prices_as_of: priced ? table.as_of : null,
    wall_ms: wallMs,
  };
}

/** USD for these counts at the model's price, or null when the table does not price it. */
export function costOf(usage: TokenCounts & { model: string }, table: PriceTable): number | null {
  const price = modelPrice(table, usage.model);
  if (price === undefined) return null;
  const usd =
    (usage.input * price.input +
      usage.output * price.output +
      usage.cache_read * price.cache_read +
      usage.cache_write * price.cache_write) /
    1_000_000;
  return roundUsd(usd);
}

/** To a hundredth of a cent: estimates, not invoices. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}

/** A model name from a transcript: escape-free, one line, bounded; `unknown` when empty. */
export function modelName(text: string): string {
  const clean = clip(plainLine(text), MODEL_NAME_MAX).trim();
  return clean === '' ? 'unknown' : clean;
}

/** `12k tok · $0.31`, `12k tok · cost unknown`, or `usage unknown`. */
export function receiptText(receipt: Receipt | null | undefined): string {
  if (!receipt || receipt.tokens === null) return 'usage unknown';
  return `${tokensText(receipt.tokens)} tok · ${receipt.usd === null ? 'cost unknown' : usdText(receipt.usd)}`;
}

/** `950`, `12k`, `1.2M`, `3.4B`. */
export function tokensText(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  const units: Array<[number, string]> = [
    [1e3, 'k'],
    [1e6, 'M'],
    [1e9, 'B'],
  ];
  let shown = String(tokens);
  for (const [size, unit] of units) {
    if (tokens < size) break;
    const value = tokens / size;
    const digits = value < 10 ? value.toFixed(1).replace(/\.0$/, '') : String(Math.round(value));
    // 999,999 is `1M`, not `1000k`: a bigger unit takes over where this one rounds to 1000.
    if (digits !== '1000' || unit === 'B') shown = `${digits}${unit}`;
    else shown = `1${units[units.findIndex(([, u]) => u === unit) + 1]?.[1] ?? unit}`;
  }
  return shown;
}

/** `$0.31`, `$12.40`, `<$0.01`. */
export function usdText(usd: number): string {
  if (usd > 0 && usd < 0.005) return '<$0.01';
  // Half a cent rounds up: 15.475 is held as 15.47499… in binary.
  return `$${(Math.round(usd * 100 + 1e-6) / 100).toFixed(2)}`;
}

/** The receipt of a child that ran from `createdMs` to `endMs`: usage null is an unknown receipt. */
export function childReceipt(
  usage: readonly ModelUsage[] | null,
  table: PriceTable,
  createdMs: number,
  endMs: number,
): Receipt {
  const wall = Math.max(0, endMs - createdMs);
  return usage === null ? unknownReceipt(wall) : receiptOf(usage, table, wall);
}

/** `12k tok · $0.31 at 2025-11-24 prices, claude-sonnet-4-5`: receiptText with where it came from. */
export function receiptLine(receipt: Receipt | null | undefined): string {
  const text = receiptText(receipt);
  if (!receipt || receipt.tokens === null) return text;
  const dated =
    receipt.usd !== null && receipt.prices_as_of !== null
      ? ` at ${modelName(receipt.prices_as_of)} prices`
      : '';
  return `${text}${dated}${receipt.model === null ? '' : `, ${modelName(receipt.model)}`}`;
}
