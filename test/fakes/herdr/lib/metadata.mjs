// Metadata tokens of one terminal or workspace (§6.1): a report is a PATCH (string sets, null or an
// empty-after-cleaning value clears, omitted keys stay), at most 16 keys per report and 32 kept,
// an optional TTL per key set by that report, and per-source `seq` ordering (a stale seq is
// accepted but ignored; at most 32 sequenced sources ever, slots never freed).
import { ApiError } from './protocol.mjs';

const KEY = /^[A-Za-z0-9_-]{1,32}$/;
const SOURCE = /^[A-Za-z0-9:._-]{1,80}$/;
export const MAX_KEYS_PER_REPORT = 16;
export const MAX_KEYS = 32;
const MAX_SEQUENCED_SOURCES = 32;
const MAX_TTL_MS = 86_400_000;

/** Trims, drops control characters and cuts to 80 characters (Herdr's token value rule). */
export function cleanValue(value) {
  return Array.from(value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim())
    .slice(0, 80)
    .join('');
}

export function checkSource(source) {
  if (!SOURCE.test(source)) {
    throw new ApiError('invalid_metadata_source', 'metadata source must be 1-80 chars of [A-Za-z0-9:._-]');
  }
}

export function checkTtl(ttl) {
  if (ttl !== undefined && (ttl < 1 || ttl > MAX_TTL_MS)) {
    throw new ApiError('invalid_metadata_ttl', `ttl_ms must be between 1 and ${MAX_TTL_MS}`);
  }
}

export function checkTokenKeys(tokens) {
  const keys = Object.keys(tokens ?? {});
  if (keys.length > MAX_KEYS_PER_REPORT) {
    throw new ApiError('invalid_metadata_token', `at most ${MAX_KEYS_PER_REPORT} tokens per report`);
  }
  for (const key of keys) {
    if (!KEY.test(key)) throw new ApiError('invalid_metadata_token', `invalid metadata token name ${key}`);
  }
}

export class TokenStore {
  /** key → { value, expiresAt? } */
  #tokens = new Map();
  /** source → last accepted seq */
  #seqs = new Map();

  constructor(now = () => Date.now()) {
    this.now = now;
  }

  /** True when `seq` is not newer than the source's last accepted one (answer ok, change nothing). */
  isStale(source, seq) {
    if (seq === undefined) return false;
    const last = this.#seqs.get(source);
    if (last === undefined && this.#seqs.size >= MAX_SEQUENCED_SOURCES) {
      throw new ApiError('metadata_sequence_source_limit', 'too many sequenced metadata sources');
    }
    return last !== undefined && seq <= last;
  }

  commitSeq(source, seq) {
    if (seq !== undefined) this.#seqs.set(source, seq);
  }

  #expire() {
    const now = this.now();
    for (const [key, token] of this.#tokens) {
      if (token.expiresAt !== undefined && token.expiresAt <= now) this.#tokens.delete(key);
    }
  }

  /** Applies a validated patch atomically; throws metadata_token_limit leaving tokens untouched. */
  apply(patch, ttlMs) {
    this.#expire();
    const next = new Map(this.#tokens);
    const expiresAt = ttlMs === undefined ? undefined : this.now() + ttlMs;
    for (const [key, raw] of Object.entries(patch)) {
      const value = raw === null ? '' : cleanValue(raw);
      if (value === '') next.delete(key);
      else next.set(key, { value, expiresAt });
    }
    if (next.size > MAX_KEYS) {
      throw new ApiError('metadata_token_limit', `at most ${MAX_KEYS} metadata tokens are kept`);
    }
    this.#tokens = next;
  }

  /** Live tokens as a plain map, or undefined when empty (maps are omitted when empty). */
  snapshot() {
    this.#expire();
    if (this.#tokens.size === 0) return undefined;
    return Object.fromEntries([...this.#tokens].map(([key, token]) => [key, token.value]));
  }

  /** Earliest pending expiry, so the owner can announce the change when it happens. */
  nextExpiry() {
    let next;
    for (const token of this.#tokens.values()) {
      if (token.expiresAt !== undefined && (next === undefined || token.expiresAt < next))
        next = token.expiresAt;
    }
    return next;
  }
}
