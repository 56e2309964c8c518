// JSON-lines records from a window of raw transcript bytes. Pure. A transcript is written while we
// read it and may hold anything, so a partial first line (the window starts mid-file), a truncated
// last line, invalid UTF-8 or invalid JSON only lose that line, never the read.

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export type JsonRecord = Record<string, unknown>;

/** Object records in file order. `startsMidFile`: the first line is a fragment and is dropped. */
export function jsonRecords(bytes: Uint8Array, startsMidFile: boolean): JsonRecord[] {
  const records: JsonRecord[] = [];
  let start = 0;
  if (startsMidFile) {
    const first = bytes.indexOf(NEWLINE);
    if (first < 0) return records;
    start = first + 1;
  }
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.length;
    const record = parseLine(bytes.subarray(start, end));
    if (record) records.push(record);
    start = end + 1;
  }
  return records;
}

function parseLine(line: Uint8Array): JsonRecord | undefined {
  if (line.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(line);
  } catch {
    return undefined;
  }
  if (text.trim() === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
