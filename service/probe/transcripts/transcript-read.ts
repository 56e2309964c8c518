// Reads an agent's model and latest activity from its transcript, touching only its ends:
// transcripts grow to hundreds of megabytes. The tail is read in growing windows (64 KiB, then
// 256 KiB) until it names both; when the tail names no model (a long run of tool output), the
// first 64 KiB are read for the model the session started with. A file that cannot be read gives
// no facts rather than an error: these facts are for display and never decide anything.

import type { TranscriptCache } from './cache.js';
import { formatOf, type TranscriptFormat } from './formats.js';
import { type FileFacts, nodeTranscriptFs, type TranscriptFs } from './fs.js';
import { jsonRecords } from './lines.js';
import { latestFacts, NO_FACTS, type TranscriptFacts } from './transcript-facts.js';

export const TAIL_WINDOWS = [64 * 1024, 256 * 1024] as const;
export const HEAD_BYTES = 64 * 1024;

export interface TranscriptReadIO {
  fs?: TranscriptFs;
  cache?: TranscriptCache;
  /**
   * The file's stat its caller just took (the service's discovery, the same tick): with a cache,
   * an unchanged transcript then costs that one stat and no read.
   */
  file?: FileFacts;
}

export async function readTranscriptFacts(
  path: string,
  agent: string,
  deps: TranscriptReadIO = {},
): Promise<TranscriptFacts> {
  const format = formatOf(agent);
  if (!format) return NO_FACTS;
  const fs = deps.fs ?? nodeTranscriptFs;
  try {
    const file = deps.file ?? (await fs.stat(path));
    if (!file?.isFile) return NO_FACTS;
    const key = `${format}\0${path}`;
    const cached = deps.cache?.facts(key, file);
    if (cached) return cached;
    const facts = await readEnds(fs, path, file.size, format);
    deps.cache?.rememberFacts(key, file, facts);
    return facts;
  } catch {
    return NO_FACTS;
  }
}

async function readEnds(
  fs: TranscriptFs,
  path: string,
  size: number,
  format: TranscriptFormat,
): Promise<TranscriptFacts> {
  let facts = NO_FACTS;
  let tailStart = size;
  for (const window of TAIL_WINDOWS) {
    tailStart = Math.max(0, size - window);
    facts = latestFacts(jsonRecords(await fs.read(path, tailStart, size - tailStart), tailStart > 0), format);
    if ((facts.model !== null && facts.activity !== null) || tailStart === 0) break;
  }
  if (facts.model !== null || tailStart === 0) return facts;
  const head = await fs.read(path, 0, Math.min(HEAD_BYTES, tailStart));
  return { model: latestFacts(jsonRecords(head, false), format).model, activity: facts.activity };
}
