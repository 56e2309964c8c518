// The usage each harness records in its transcript, one fold per format, fed records in file order:
//   Claude Code  {type:"assistant", requestId, message:{id, model, usage:{input_tokens, output_tokens,
//                cache_read_input_tokens, cache_creation_input_tokens}}}: one line per content block,
//                the same message id and usage repeated on each, so a message counts once (its last line).
//   Codex        {type:"event_msg", payload:{type:"token_count", info:{total_token_usage:{input_tokens,
//                cached_input_tokens, output_tokens, reasoning_output_tokens, total_tokens}}}}: running
//                totals, repeated on rate-limit updates; input includes the cached part and output the
//                reasoning. The model is the latest turn_context's.
//   Pi           {type:"message", message:{role:"assistant", provider, model, usage:{input, output,
//                cacheRead, cacheWrite}}}: one line per response.

import { type TokenCounts, tokenCounts, UsageTally } from '../../core/receipts/usage.js';
import type { TranscriptFormat } from './formats.js';
import { isRecord, type JsonRecord } from './lines.js';

/** Recent Claude message ids remembered to count each once (their lines are adjacent in practice). */
const RECENT_IDS = 64;

export interface UsageFold {
  add(record: JsonRecord): void;
  /** The tally once every record is in. */
  finish(): UsageTally;
}

export function usageFold(format: TranscriptFormat): UsageFold {
  if (format === 'claude') return claudeFold();
  if (format === 'codex') return codexFold();
  return piFold();
}

/** Lines a fold needs hold one of these bytes: the reader parses no other line. */
export function usageMarkers(format: TranscriptFormat): readonly string[] {
  if (format === 'codex') return ['"token_count"', '"turn_context"'];
  return ['"usage"'];
}

function claudeFold(): UsageFold {
  const tally = new UsageTally();
  const recent: string[] = [];
  let pending: { key: string; model: string; counts: TokenCounts | undefined } | null = null;
  const commit = () => {
    if (pending === null) return;
    if (pending.counts === undefined) tally.garbage++;
    else tally.add(pending.model, pending.counts);
    recent.push(pending.key);
    if (recent.length > RECENT_IDS) recent.shift();
    pending = null;
  };
  return {
    add(record) {
      const message = record.message;
      if (record.type !== 'assistant' || !isRecord(message) || !isRecord(message.usage)) return;
      // Claude Code's own messages (errors, interruptions) carry zero usage under this model.
      if (message.model === '<synthetic>') return;
      const usage = message.usage;
      const id = typeof message.id === 'string' ? message.id : null;
      const key = id === null ? `line:${String(record.uuid)}` : `${id}\0${String(record.requestId ?? '')}`;
      const entry = {
        key,
        model: typeof message.model === 'string' ? message.model : 'unknown',
        counts: tokenCounts({
          input: usage.input_tokens,
          output: usage.output_tokens,
          cache_read: usage.cache_read_input_tokens,
          cache_write: usage.cache_creation_input_tokens,
        }),
      };
      if (pending?.key === key) {
        pending = entry;
        return;
      }
      commit();
      if (recent.includes(key)) return;
      pending = entry;
    },
    finish() {
      commit();
      return tally;
    },
  };
}

interface CodexTotals {
  input: number;
  cached: number;
  output: number;
}

function codexFold(): UsageFold {
  const tally = new UsageTally();
  let model = 'unknown';
  let last: CodexTotals = { input: 0, cached: 0, output: 0 };
  return {
    add(record) {
      const payload = record.payload;
      if (!isRecord(payload)) return;
      if (record.type === 'turn_context') {
        if (typeof payload.model === 'string' && payload.model !== '') model = payload.model;
        return;
      }
      if (record.type !== 'event_msg' || payload.type !== 'token_count' || !isRecord(payload.info)) return;
      const total = payload.info.total_token_usage;
      if (!isRecord(total)) return;
      const counts = tokenCounts({
        input: total.input_tokens,
        output: total.output_tokens,
        cache_read: total.cached_input_tokens,
        cache_write: 0,
      });
      if (counts === undefined || counts.cache_read > counts.input) {
        tally.garbage++;
        return;
      }
      const now = { input: counts.input, cached: counts.cache_read, output: counts.output };
      // Running totals: a repeat adds nothing; totals that went down began again (a new thread).
      const restarted = now.input < last.input || now.output < last.output || now.cached < last.cached;
      const base = restarted ? { input: 0, cached: 0, output: 0 } : last;
      const delta = {
        input: now.input - base.input - (now.cached - base.cached),
        output: now.output - base.output,
        cache_read: now.cached - base.cached,
        cache_write: 0,
      };
      last = now;
      if (delta.input + delta.output + delta.cache_read === 0) return;
      // Cached input that grew faster than input is garbage too: never a negative count.
      if (delta.input < 0) {
        tally.garbage++;
        return;
      }
      tally.add(model, delta);
    },
    finish() {
      return tally;
    },
  };
}

function piFold(): UsageFold {
  const tally = new UsageTally();
  return {
    add(record) {
      const message = record.message;
      if (record.type !== 'message' || !isRecord(message) || message.role !== 'assistant') return;
      const usage = message.usage;
      if (!isRecord(usage)) return;
      const counts = tokenCounts({
        input: usage.input,
        output: usage.output,
        cache_read: usage.cacheRead,
        cache_write: usage.cacheWrite,
      });
      if (counts === undefined) {
        tally.garbage++;
        return;
      }
      const id = typeof message.model === 'string' ? message.model : 'unknown';
      const provider =
        typeof message.provider === 'string' && message.provider !== '' ? `${message.provider}/` : '';
      tally.add(`${provider}${id}`, counts);
    },
    finish() {
      return tally;
    },
  };
}
