// The usage reader on real files: each harness's records (Claude's repeated lines per response,
// Codex's repeated running totals, Pi's per-response usage), and what a hostile or broken
// transcript cannot do: garbage or huge counts, a line of megabytes, a directory or FIFO in its
// place, a file with no usage at all (unknown, never 0).
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LINE_MAX, readTranscriptUsage } from '../../../service/probe/transcripts/usage-read.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('dogsled-transcript-usage-');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const jsonl = (...records: unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
async function file(text: string): Promise<string> {
  const path = join(dir, `t-${Math.random().toString(36).slice(2)}.jsonl`);
  await writeFile(path, text);
  return path;
}

const claude = (id: string, usage: unknown, model = 'claude-sonnet-4-5-20250929', block = 'text') => ({
  type: 'assistant',
  requestId: `req_${id}`,
  message: { id, model, content: [{ type: block, text: 'x' }], usage },
});
const claudeUsage = (input: number, output: number, read: number, write: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
});

describe('Claude Code usage', () => {
  it('counts each response once though each content block repeats it, per model', async () => {
    const path = await file(
      jsonl(
        { type: 'user', message: { role: 'user', content: 'go' }, usage: 'not this' },
        claude('msg_1', claudeUsage(3, 10, 100, 50), undefined, 'thinking'),
        claude('msg_1', claudeUsage(3, 12, 100, 50), undefined, 'tool_use'),
        { type: 'user', message: { role: 'user', content: [{ type: 'tool_result' }] } },
        claude('msg_2', claudeUsage(1, 20, 150, 0)),
        claude('msg_3', claudeUsage(2, 5, 0, 0), 'claude-haiku-4-5'),
        claude('msg_s', claudeUsage(0, 0, 0, 0), '<synthetic>'),
      ),
    );
    const tally = await readTranscriptUsage(path, 'claude');
    expect(tally?.models()).toEqual([
      {
        model: 'claude-sonnet-4-5-20250929',
        input: 4,
        output: 32,
        cache_read: 250,
        cache_write: 50,
        turns: 2,
      },
      { model: 'claude-haiku-4-5', input: 2, output: 5, cache_read: 0, cache_write: 0, turns: 1 },
    ]);
    expect(tally?.garbage).toBe(0);
  });

  it('skips garbage and absurd counts without letting them add up to NaN or 0', async () => {
    const path = await file(
      jsonl(
        claude('a', claudeUsage(1, 1, 1, 1)),
        claude('b', { input_tokens: 1e300, output_tokens: 1 }),
        claude('c', { input_tokens: -5, output_tokens: 1 }),
        claude('d', { input_tokens: '7', output_tokens: 1 }),
        claude('e', { input_tokens: 1.5, output_tokens: 1 }),
        claude('f', { output_tokens: 2 }),
      ) + '{"type":"assistant","message":{"usage":\n\u0000\u00ff garbage\n',
    );
    const tally = await readTranscriptUsage(path, 'claude');
    expect(tally?.garbage).toBe(4);
    expect(tally?.models()).toEqual([
      { model: 'claude-sonnet-4-5-20250929', input: 1, output: 3, cache_read: 1, cache_write: 1, turns: 2 },
    ]);
  });

  it('has no usage (not zero) in a transcript that records none', async () => {
    const path = await file(jsonl({ type: 'assistant', message: { id: 'm', model: 'x', content: [] } }));
    expect((await readTranscriptUsage(path, 'claude'))?.models()).toEqual([]);
  });
});

describe('Codex usage', () => {
  const count = (input: number, cached: number, output: number) => ({
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: {
        total_token_usage: {
          input_tokens: input,
          cached_input_tokens: cached,
          output_tokens: output,
          total_tokens: input + output,
        },
        last_token_usage: null,
      },
    },
  });
  const context = (model: string) => ({ type: 'turn_context', payload: { model } });

  it('turns running totals into responses, ignoring repeats, per turn model', async () => {
    const path = await file(
      jsonl(
        { type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: {} } },
        context('gpt-5-codex'),
        count(1000, 800, 50),
        count(1000, 800, 50),
        count(2500, 2000, 120),
        context('gpt-5'),
        count(4000, 3000, 200),
      ),
    );
    const tally = await readTranscriptUsage(path, 'codex');
    expect(tally?.models()).toEqual([
      { model: 'gpt-5-codex', input: 500, output: 120, cache_read: 2000, cache_write: 0, turns: 2 },
      { model: 'gpt-5', input: 500, output: 80, cache_read: 1000, cache_write: 0, turns: 1 },
    ]);
  });

  it('skips totals whose cached part exceeds the input', async () => {
    const path = await file(jsonl(context('gpt-5'), count(10, 50, 1), count(100, 10, 5)));
    const tally = await readTranscriptUsage(path, 'codex');
    expect(tally?.garbage).toBe(1);
    expect(tally?.models()).toEqual([
      { model: 'gpt-5', input: 90, output: 5, cache_read: 10, cache_write: 0, turns: 1 },
    ]);
  });
});

describe('Pi usage', () => {
  it('adds each assistant response under provider/model', async () => {
    const message = (usage: unknown, model = 'claude-sonnet-4-5') => ({
      type: 'message',
      message: { role: 'assistant', provider: 'anthropic', model, usage, content: [] },
    });
    const path = await file(
      jsonl(
        { type: 'message', message: { role: 'user', content: [], usage: { input: 999 } } },
        message({
          input: 5,
          output: 7,
          cacheRead: 100,
          cacheWrite: 10,
          totalTokens: 122,
          cost: { total: 1 },
        }),
        message({ input: 5, output: 7, cacheRead: 100, cacheWrite: 10 }),
        message({ input: 'lots', output: 7 }),
      ),
    );
    const tally = await readTranscriptUsage(path, 'pi');
    expect(tally?.models()).toEqual([
      {
        model: 'anthropic/claude-sonnet-4-5',
        input: 10,
        output: 14,
        cache_read: 200,
        cache_write: 20,
        turns: 2,
      },
    ]);
    expect(tally?.garbage).toBe(1);
  });
});

describe('a transcript that is not one', () => {
  it('skips a line longer than LINE_MAX and still reads the lines after it', async () => {
    const huge = JSON.stringify(claude('big', claudeUsage(1, 1, 1, 1))).replace(
      '"x"',
      `"${'x'.repeat(LINE_MAX + 10)}"`,
    );
    const path = await file(`${huge}\n${jsonl(claude('after', claudeUsage(2, 2, 0, 0)))}`);
    const tally = await readTranscriptUsage(path, 'claude');
    expect(tally?.models().map((m) => [m.input, m.turns])).toEqual([[2, 1]]);
  });

  it('is unknown (null) for a directory, a FIFO, or nothing at that path', async () => {
    const sub = join(dir, 'd.jsonl');
    await mkdir(sub);
    expect(await readTranscriptUsage(sub, 'claude')).toBeNull();
    const fifo = join(dir, 'f.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(await readTranscriptUsage(fifo, 'codex')).toBeNull();
    expect(await readTranscriptUsage(join(dir, 'none.jsonl'), 'pi')).toBeNull();
  });
});
