// What the service keeps between ticks so fifty panes do not walk ~/.claude and ~/.codex fifty
// times, or re-parse transcripts that did not change. One cache per service; without one every
// call reads afresh. Session indexes are rebuilt after `maxAgeMs`, and each rebuild re-reads only
// the directories whose modification time moved; transcript facts are reused while a file's size
// and modification time are unchanged.

import type { TranscriptFs } from './fs.js';
import type { TranscriptFacts } from './transcript-facts.js';

/** Session id -> every transcript path carrying that id (more than one is ambiguous). */
export type SessionIndex = Map<string, string[]>;

/** Names in a directory; undefined when it is missing or not a directory. */
export type ListDir = (dir: string) => Promise<string[] | undefined>;

export interface TranscriptCache {
  index(
    key: string,
    now: number,
    fs: TranscriptFs,
    build: (list: ListDir) => Promise<SessionIndex>,
  ): Promise<SessionIndex>;
  invalidate(key: string): void;
  /** Facts remembered under `key` (format and path) while the file keeps its size and mtime. */
  facts(key: string, size: number, mtimeMs: number): TranscriptFacts | undefined;
  rememberFacts(key: string, size: number, mtimeMs: number, facts: TranscriptFacts): void;
}

interface Listing {
  mtimeMs: number;
  names: string[];
}

interface IndexEntry {
  builtMs: number;
  index: SessionIndex;
  listings: Map<string, Listing>;
}

/** Facts of dead panes' transcripts fall out after this many newer entries. */
const FACTS_LIMIT = 512;

export function transcriptCache(options: { maxAgeMs?: number } = {}): TranscriptCache {
  const maxAgeMs = options.maxAgeMs ?? 5_000;
  const indexes = new Map<string, IndexEntry>();
  const facts = new Map<string, { size: number; mtimeMs: number; facts: TranscriptFacts }>();

  return {
    async index(key, now, fs, build) {
      const held = indexes.get(key);
      if (held && maxAgeMs > 0 && now - held.builtMs < maxAgeMs) return held.index;
      const previous = held?.listings ?? new Map<string, Listing>();
      const listings = new Map<string, Listing>();
      const list: ListDir = async (dir) => {
        const info = await fs.stat(dir);
        if (!info?.isDirectory) return undefined;
        const known = previous.get(dir);
        const names = known && known.mtimeMs === info.mtimeMs ? known.names : await fs.readdir(dir);
        if (names) listings.set(dir, { mtimeMs: info.mtimeMs, names });
        return names;
      };
      const index = await build(list);
      indexes.set(key, { builtMs: now, index, listings });
      return index;
    },
    invalidate(key) {
      const held = indexes.get(key);
      if (held) held.builtMs = Number.NEGATIVE_INFINITY;
    },
    facts(key, size, mtimeMs) {
      const held = facts.get(key);
      if (!held || held.size !== size || held.mtimeMs !== mtimeMs) return undefined;
      facts.delete(key);
      facts.set(key, held);
      return held.facts;
    },
    rememberFacts(key, size, mtimeMs, value) {
      facts.delete(key);
      facts.set(key, { size, mtimeMs, facts: value });
      if (facts.size > FACTS_LIMIT) facts.delete(facts.keys().next().value!);
    },
  };
}
