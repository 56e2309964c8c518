// Token counts as harnesses record them, made one shape: uncached input, output, cache reads and
// cache writes, per model. A transcript is untrusted, so a count is taken only when it is a
// non-negative integer no single model response could exceed; anything else makes that record
// garbage (skipped and counted), never a 0 and never a NaN. Pure.

export type TokenCounts = {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
};

/** One model's share of a session: its tokens and how many responses it gave. */
export interface ModelUsage extends TokenCounts {
  model: string;
  turns: number;
}

/**
 * The most tokens one record may claim: far above any context window (2M) and output limit, low
 * enough that millions of records still sum to a safe integer.
 */
export const MAX_RECORD_TOKENS = 100_000_000;

export const ZERO_COUNTS: TokenCounts = Object.freeze({ input: 0, output: 0, cache_read: 0, cache_write: 0 });

/** A token count from a transcript field: absent is 0, anything not a plausible count is undefined. */
export function tokenCount(value: unknown): number | undefined {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return undefined;
  return value >= 0 && value <= MAX_RECORD_TOKENS ? value : undefined;
}

/** All four counts, or undefined when any field is garbage. */
export function tokenCounts(fields: {
  input: unknown;
  output: unknown;
  cache_read: unknown;
  cache_write: unknown;
}): TokenCounts | undefined {
  const input = tokenCount(fields.input);
  const output = tokenCount(fields.output);
  const cache_read = tokenCount(fields.cache_read);
  const cache_write = tokenCount(fields.cache_write);
  if (input === undefined || output === undefined || cache_read === undefined || cache_write === undefined)
    return undefined;
  return { input, output, cache_read, cache_write };
}

export function totalTokens(counts: TokenCounts): number {
  return counts.input + counts.output + counts.cache_read + counts.cache_write;
}

/** Usage per model, added up record by record. */
export class UsageTally {
  private readonly byModel = new Map<string, ModelUsage>();
  /** Records whose counts were garbage: skipped. */
  garbage = 0;

  add(model: string, counts: TokenCounts, turns = 1): void {
    const seen = this.byModel.get(model);
    if (seen === undefined) {
      this.byModel.set(model, { model, ...counts, turns });
      return;
    }
    seen.input += counts.input;
    seen.output += counts.output;
    seen.cache_read += counts.cache_read;
    seen.cache_write += counts.cache_write;
    seen.turns += turns;
  }

  models(): ModelUsage[] {
    return [...this.byModel.values()];
  }
}
