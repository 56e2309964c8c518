// What the service keeps between ticks so fifty panes do not walk ~/.claude and ~/.codex fifty
// times, or re-parse transcripts that did not change. One cache per service; without one every
// call reads afresh. Session indexes are rebuilt after `maxAgeMs`, and each rebuild re-reads only
// the directories whose modification time moved; transcript facts are reused while a file's size
// and modification time (and, where known, inode and change time) are unchanged, and a file once
// opened is not opened again to prove it readable while its identity stays the same (sameFile).

import { type FileFacts, sameFile, type TranscriptFs } from './fs.js';
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
  facts(key: string, file: FileFacts): TranscriptFacts | undefined;
  rememberFacts(key: string, file: FileFacts, facts: TranscriptFacts): void;
  /** Whether `path` was opened at this very identity before (sameFile), so it still opens. */
  opened(path: string, file: FileFacts): boolean;
  rememberOpened(path: string, file: FileFacts): void;
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

/** The same file as far as its facts go: inode and change time compared only where known. */
function unchanged(a: FileFacts, b: FileFacts): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.ctimeMs === b.ctimeMs;
}

/** A map that forgets its least recently used entries above `limit`. */
function remember<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value!);
}

export function transcriptCache(options: { maxAgeMs?: number } = {}): TranscriptCache {
  const maxAgeMs = options.maxAgeMs ?? 5_000;
  const indexes = new Map<string, IndexEntry>();
  const facts = new Map<string, { file: FileFacts; facts: TranscriptFacts }>();
  const opened = new Map<string, FileFacts>();

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
    facts(key, file) {
      const held = facts.get(key);
      if (!held || !unchanged(held.file, file)) return undefined;
      remember(facts, key, held, FACTS_LIMIT);
      return held.facts;
    },
    rememberFacts(key, file, value) {
      remember(facts, key, { file, facts: value }, FACTS_LIMIT);
    },
    opened(path, file) {
      const held = opened.get(path);
      if (!held || !sameFile(held, file)) return false;
      remember(opened, path, held, FACTS_LIMIT);
      return true;
    },
    rememberOpened(path, file) {
      remember(opened, path, file, FACTS_LIMIT);
    },
  };
}
