// A finished child's final reply: the last assistant message of its transcript, whole (the facts
// reader keeps one display line). Read from the file's tail only; null when the tail holds no
// assistant message or the file cannot be read. The text is untrusted: escapes are stripped.

import { clip, stripEscapes } from '../../core/text/clean.js';
import { formatOf, type TranscriptFormat } from './formats.js';
import { nodeTranscriptFs, type TranscriptFs } from './fs.js';
import { isRecord, type JsonRecord, jsonRecords } from './lines.js';

const TAIL_BYTES = 512 * 1024;
/** A reply longer than this is cut: it goes into items.json and an inbox record. */
export const REPLY_MAX_CHARS = 16 * 1024;

export async function readFinalReply(
  path: string,
  agent: string,
  fs: TranscriptFs = nodeTranscriptFs,
): Promise<string | null> {
  const format = formatOf(agent);
  if (!format) return null;
  try {
    const file = await fs.stat(path);
    if (!file?.isFile) return null;
    const start = Math.max(0, file.size - TAIL_BYTES);
    const records = jsonRecords(await fs.read(path, start, file.size - start), start > 0);
    for (let i = records.length - 1; i >= 0; i--) {
      const text = replyOf(format, records[i] as JsonRecord);
      if (text !== null && text.trim() !== '') {
        return clip(stripEscapes(text).trim(), REPLY_MAX_CHARS);
      }
    }
    return null;
  } catch {
    return null;
  }
}

function replyOf(format: TranscriptFormat, record: JsonRecord): string | null {
  if (format === 'codex') {
    const payload = record.payload;
    if (!isRecord(payload)) return null;
    if (record.type === 'event_msg' && payload.type === 'agent_message') return str(payload.message);
    if (record.type === 'response_item' && payload.type === 'message' && payload.role === 'assistant') {
      return texts(payload.content);
    }
    return null;
  }
  const message = record.message;
  if (!isRecord(message)) return null;
  if (format === 'claude' && record.type === 'assistant') return texts(message.content);
  if (format === 'pi' && record.type === 'message' && message.role === 'assistant')
    return texts(message.content);
  return null;
}

function texts(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts = content.flatMap((block) =>
    isRecord(block) &&
    (block.type === 'text' || block.type === 'output_text') &&
    typeof block.text === 'string'
      ? [block.text]
      : [],
  );
  return parts.length === 0 ? null : parts.join('\n');
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
