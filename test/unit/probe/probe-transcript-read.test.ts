import { appendFile, rename, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { transcriptCache } from '../../../service/probe/transcripts/cache.js';
import { nodeTranscriptFs, type TranscriptFs } from '../../../service/probe/transcripts/fs.js';
import {
  HEAD_BYTES,
  readTranscriptFacts,
  TAIL_WINDOWS,
} from '../../../service/probe/transcripts/transcript-read.js';
import { tempDir } from '../../helpers/tree.js';

const T = '2026-03-01T10:00:00.000Z';
let dir: string;

beforeEach(async () => {
  dir = await tempDir('dogsled-transcript-read-');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const jsonl = (...records: unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const claudeText = (text: string, model = 'claude-sonnet-4-5') => ({
  type: 'assistant',
  timestamp: T,
  message: { role: 'assistant', model, content: [{ type: 'text', text }] },
});
const claudeToolResult = (size: number) => ({
  type: 'user',
  timestamp: T,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x'.repeat(size) }] },
});

describe('readTranscriptFacts', () => {
  it('reads the model and latest activity from the tail of a 50 MB transcript', async () => {
    const path = join(dir, 'huge.jsonl');
    await writeFile(path, jsonl(claudeText('at the start', 'claude-opus-4-1')));
    // Sparse middle: 50 MB of NUL bytes that are never read, then a complete tail.
    await truncate(path, 50 * 1024 * 1024);
    await appendFile(path, `\n${jsonl(claudeText('near the end'))}`);
    const facts = await readTranscriptFacts(path, 'claude');
    expect(facts).toEqual({
      model: 'claude-sonnet-4-5',
      activity: { at_ms: Date.parse(T), kind: 'message', text: 'near the end' },
    });
  });

  it('reads only the ends of the file', async () => {
    const path = join(dir, 'huge.jsonl');
    await writeFile(path, jsonl(claudeText('start')));
    await truncate(path, 20 * 1024 * 1024);
    await appendFile(path, `\n${jsonl(claudeText('end'))}`);
    const counting = countingFs();
    await readTranscriptFacts(path, 'claude', { fs: counting.fs });
    expect(counting.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('falls back to the head for the model when the tail is one long tool output', async () => {
    const path = join(dir, 'long-output.jsonl');
    await writeFile(
      path,
      jsonl(claudeText('reading', 'claude-haiku-4-5'), claudeToolResult(1024 * 1024), {
        type: 'assistant',
        timestamp: T,
        message: { role: 'assistant', model: '<synthetic>', content: [{ type: 'text', text: 'after' }] },
      }),
    );
    const counting = countingFs();
    const facts = await readTranscriptFacts(path, 'claude', { fs: counting.fs });
    expect(facts.model).toBe('claude-haiku-4-5');
    expect(facts.activity?.text).toBe('after');
    // The model came from the head and the activity from the tail: the tool output between them was
    // never read whole, only the tail windows and the head.
    expect(counting.bytes).toBeLessThanOrEqual(TAIL_WINDOWS.at(-1)! + TAIL_WINDOWS[0] + HEAD_BYTES);
    expect(counting.bytes).toBeLessThan((await stat(path)).size / 2);
  });

  it('tolerates a last line truncated mid-write', async () => {
    const path = join(dir, 'truncated.jsonl');
    await writeFile(path, `${jsonl(claudeText('complete'))}{"type":"assistant","message":{"model":"cut`);
    expect((await readTranscriptFacts(path, 'claude')).activity?.text).toBe('complete');
  });

  it('skips lines with invalid UTF-8 or invalid JSON', async () => {
    const path = join(dir, 'dirty.jsonl');
    await writeFile(
      path,
      Buffer.concat([
        Buffer.from(jsonl(claudeText('good one'))),
        Buffer.from('{"type":"assistant","message":{"model":"m","content":"bad \xff\xfe"}}\n', 'latin1'),
        Buffer.from('{not json}\n\n'),
      ]),
    );
    expect((await readTranscriptFacts(path, 'claude')).activity?.text).toBe('good one');
  });

  it('strips escape sequences from activity text', async () => {
    const path = join(dir, 'escapes.jsonl');
    await writeFile(path, jsonl(claudeText('\x1b]0;title\x07\x1b[31mhello\x1b[0m\r')));
    expect((await readTranscriptFacts(path, 'claude')).activity?.text).toBe('hello');
  });

  it('gives no facts for a missing file, an unreadable file or an unknown harness', async () => {
    const path = join(dir, 'x.jsonl');
    await writeFile(path, jsonl(claudeText('hi')));
    const none = { model: null, activity: null };
    expect(await readTranscriptFacts(join(dir, 'gone.jsonl'), 'claude')).toEqual(none);
    expect(await readTranscriptFacts(path, 'gemini')).toEqual(none);
    const refusing: TranscriptFs = {
      ...nodeTranscriptFs,
      read: async () => {
        throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
      },
    };
    expect(await readTranscriptFacts(path, 'claude', { fs: refusing })).toEqual(none);
  });

  it('reuses cached facts while the file keeps its size and modification time', async () => {
    const path = join(dir, 'cached.jsonl');
    await writeFile(path, jsonl(claudeText('one')));
    const cache = transcriptCache();
    let reads = 0;
    const counting: TranscriptFs = {
      ...nodeTranscriptFs,
      read: async (p, position, length) => {
        reads++;
        return nodeTranscriptFs.read(p, position, length);
      },
    };
    expect((await readTranscriptFacts(path, 'claude', { fs: counting, cache })).activity?.text).toBe('one');
    expect((await readTranscriptFacts(path, 'claude', { fs: counting, cache })).activity?.text).toBe('one');
    expect(reads).toBe(1);
    await appendFile(path, jsonl(claudeText('two')));
    expect((await readTranscriptFacts(path, 'claude', { fs: counting, cache })).activity?.text).toBe('two');
  });

  it('takes the stat its caller gives, and reads again when the file was replaced at the same size and time', async () => {
    const path = join(dir, 'given.jsonl');
    await writeFile(path, jsonl(claudeText('one')));
    await utimes(path, 1_700_000_000, 1_700_000_000);
    const cache = transcriptCache();
    const calls = { stat: 0, read: 0 };
    const counting: TranscriptFs = {
      stat: async (p) => {
        calls.stat++;
        return nodeTranscriptFs.stat(p);
      },
      readdir: nodeTranscriptFs.readdir,
      read: async (p, position, length) => {
        calls.read++;
        return nodeTranscriptFs.read(p, position, length);
      },
    };
    const given = await nodeTranscriptFs.stat(path);
    const read = (file = given) => readTranscriptFacts(path, 'claude', { fs: counting, cache, file });
    expect((await read()).activity?.text).toBe('one');
    expect((await read()).activity?.text).toBe('one');
    expect(calls).toEqual({ stat: 0, read: 1 });

    // Another file renamed over it, same length and mtime: its inode says it is not the one read.
    const other = join(dir, 'other.jsonl');
    await writeFile(other, jsonl(claudeText('two')));
    await utimes(other, 1_700_000_000, 1_700_000_000);
    await rename(other, path);
    const replaced = await nodeTranscriptFs.stat(path);
    expect(replaced?.size).toBe(given?.size);
    expect(replaced?.mtimeMs).toBe(given?.mtimeMs);
    expect((await read(replaced)).activity?.text).toBe('two');
  });

  it('reads Codex and Pi transcripts by their own formats', async () => {
    const codex = join(dir, 'rollout.jsonl');
    await writeFile(
      codex,
      jsonl(
        { timestamp: T, type: 'turn_context', payload: { model: 'gpt-5-codex' } },
        { timestamp: T, type: 'event_msg', payload: { type: 'agent_message', message: 'Finished.' } },
      ),
    );
    expect(await readTranscriptFacts(codex, 'codex')).toEqual({
      model: 'gpt-5-codex',
      activity: { at_ms: Date.parse(T), kind: 'message', text: 'Finished.' },
    });
    const pi = join(dir, 'pi.jsonl');
    await writeFile(
      pi,
      jsonl(
        { type: 'session', version: 3, id: 's', timestamp: T, cwd: dir },
        { type: 'model_change', id: 'a', parentId: null, timestamp: T, provider: 'anthropic', modelId: 'm' },
      ),
    );
    expect(await readTranscriptFacts(pi, 'pi')).toEqual({ model: 'anthropic/m', activity: null });
  });
});

/** The node transcript fs, counting the bytes it reads. */
function countingFs(): { fs: TranscriptFs; bytes: number } {
  const counter = {
    bytes: 0,
    fs: {
      ...nodeTranscriptFs,
      read: async (p: string, position: number, length: number) => {
        const chunk = await nodeTranscriptFs.read(p, position, length);
        counter.bytes += chunk.length;
        return chunk;
      },
    } as TranscriptFs,
  };
  return counter;
}
