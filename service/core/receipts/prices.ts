// The price table receipts are estimated with: USD per million tokens for each model, by kind of
// token. Shipped defaults carry the date they were taken from the providers' price pages; a
// `[prices]` table in config.toml replaces or adds models and names its own date. Pure.

export interface ModelPrice {
  /** USD per million uncached input tokens. */
  input: number;
  output: number;
  /** Input read from the prompt cache (OpenAI: "cached input"). */
  cache_read: number;
  /** Input written to the prompt cache (Anthropic's 5-minute cache write; OpenAI: the input price). */
  cache_write: number;
}

export interface PriceTable {
  /** The date the prices were taken (YYYY-MM-DD), shown beside every estimate. */
  as_of: string;
  models: Readonly<Record<string, ModelPrice>>;
}

const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cache_read: input / 10,
  cache_write: input * 1.25,
});
const openai = (input: number, output: number, cached: number): ModelPrice => ({
  input,
  output,
  cache_read: cached,
  cache_write: input,
});

/**
 * Public list prices (standard tier, prompts under 200k tokens) on SHIPPED_AS_OF. Keys are model
 * ids without a date suffix; the longest key a model id starts with wins (modelPrice).
 */
export const SHIPPED_AS_OF = '2025-11-24';
export const SHIPPED_PRICES: PriceTable = {
  as_of: SHIPPED_AS_OF,
  models: {
    'claude-opus-4-5': anthropic(5, 25),
    'claude-opus-4-1': anthropic(15, 75),
    'claude-opus-4': anthropic(15, 75),
    'claude-sonnet-4-5': anthropic(3, 15),
    'claude-sonnet-4': anthropic(3, 15),
    'claude-3-7-sonnet': anthropic(3, 15),
    'claude-3-5-sonnet': anthropic(3, 15),
    'claude-haiku-4-5': anthropic(1, 5),
    'claude-3-5-haiku': anthropic(0.8, 4),
    'gpt-5.1-codex-mini': openai(0.25, 2, 0.025),
    'gpt-5.1-codex': openai(1.25, 10, 0.125),
    'gpt-5.1': openai(1.25, 10, 0.125),
    'gpt-5-codex': openai(1.25, 10, 0.125),
    'gpt-5-mini': openai(0.25, 2, 0.025),
    'gpt-5-nano': openai(0.05, 0.4, 0.005),
    'gpt-5': openai(1.25, 10, 0.125),
    'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
    'gpt-4.1': openai(2, 8, 0.5),
    'codex-mini-latest': openai(1.5, 6, 0.375),
    o3: openai(2, 8, 0.5),
    'o4-mini': openai(1.1, 4.4, 0.275),
  },
};

/** The shipped table with the config's models laid over it, dated by the config when it names a date. */
export function priceTable(config: {
  as_of?: string | null | undefined;
  models?: Readonly<Record<string, ModelPrice>> | undefined;
}): PriceTable {
  if (config.models === undefined || Object.keys(config.models).length === 0) {
    return config.as_of == null ? SHIPPED_PRICES : { ...SHIPPED_PRICES, as_of: config.as_of };
  }
  return {
    as_of: config.as_of ?? SHIPPED_PRICES.as_of,
    models: { ...SHIPPED_PRICES.models, ...config.models },
  };
}

/**
 * The price of a model id as a transcript names it: a provider prefix (`anthropic/`, Pi's) and a
 * date suffix (`-20250929`) are dropped, then the exact key wins, else the longest key the id
 * starts with followed by `-` (`gpt-5-codex-high` → `gpt-5-codex`). Undefined: not in the table.
 */
export function modelPrice(table: PriceTable, model: string): ModelPrice | undefined {
  const id = priceKey(model);
  const exact = Object.hasOwn(table.models, id) ? table.models[id] : undefined;
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table.models)) {
    if (id.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table.models[best];
}

/** A model id as the table names it: lower case, no provider prefix, no date suffix. */
export function priceKey(model: string): string {
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return bare.replace(/-\d{8}$/, '');
}
