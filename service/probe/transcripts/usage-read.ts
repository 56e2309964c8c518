// Reads a finished child's whole transcript for its usage: unlike the facts reader (the ends only),
// usage is spread over every response. Read once, at the child's end, in chunks; only lines holding
// a format's marker are parsed, and a line longer than LINE_MAX (a pasted file, a hostile line) is
// skipped, so memory stays bounded whatever the file holds. A file that cannot be read is unknown
// usage (null), never zero.

import type { UsageTally } from '../../core/receipts/usage.js';
import { LineSplitter } from '../../core/text/line-splitter.js';
import type { TranscriptFormat } from './formats.js';
import { nodeTranscriptFs, type TranscriptFs } from './fs.js';
import { jsonRecords } from './lines.js';
import { usageFold, usageMarkers } from './usage-records.js';

const CHUNK_BYTES = 1024 * 1024;
/** No usage record is near this; a longer line is content, not usage. */
export const LINE_MAX = 4 * 1024 * 1024;
/** A transcript past this is not read to its end: its usage is unknown rather than partly counted. */
export const USAGE_FILE_MAX = 1024 * 1024 * 1024;

/** The usage a transcript records, or null when the file is not a readable regular file. */
export async function readTranscriptUsage(
  path: string,
  format: TranscriptFormat,
  fs: TranscriptFs = nodeTranscriptFs,
): Promise<UsageTally | null> {
  try {
    const facts = await fs.stat(path);
    if (!facts?.isFile || facts.size > USAGE_FILE_MAX) return null;
  } catch {
    return null;
  }
  const fold = usageFold(format);
  const markers = usageMarkers(format).map((marker) => Buffer.from(marker));
  const wanted = (line: Buffer) => markers.some((marker) => line.includes(marker));
  const take = (line: Buffer) => {
    if (wanted(line)) for (const record of jsonRecords(line, false)) fold.add(record);
  };
  try {
    const lines = new LineSplitter(LINE_MAX);
    let position = 0;
    for (;;) {
      const bytes = await fs.read(path, position, CHUNK_BYTES);
      if (bytes.length === 0) break;
      position += bytes.length;
      for (const line of lines.push(bytes)) take(line);
    }
    // The last line may lack its newline (a writer mid-append): parse it if whole JSON.
    const last = lines.end();
    if (last !== undefined) take(last);
    return fold.finish();
  } catch {
    return null;
  }
}
