import { describe, expect, it } from 'vitest';
import { codexRecord } from '../../../service/probe/transcripts/formats.js';
import { jsonRecords } from '../../../service/probe/transcripts/lines.js';
import { argumentSummary, displayLine } from '../../../service/probe/transcripts/summary.js';
import { transcriptFacts } from '../../../service/probe/transcripts/transcript-facts.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const T1 = '2026-03-01T10:00:00.000Z';
const T2 = '2026-03-01T10:00:05.000Z';

describe('jsonRecords', () => {
  it('returns the object lines of a window and skips blank, invalid and non-object lines', () => {
    const text = '{"a":1}\n\nnot json\n[1,2]\n"str"\n{"b":2}\n';
    expect(jsonRecords(bytes(text), false)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('drops the first line of a window that starts mid-file', () => {
    expect(jsonRecords(bytes('"a":1}\n{"b":2}\n'), true)).toEqual([{ b: 2 }]);
    expect(jsonRecords(bytes('no newline at all'), true)).toEqual([]);
  });

  it('skips a truncated last line but keeps a complete one without a newline', () => {
    expect(jsonRecords(bytes('{"a":1}\n{"b":'), false)).toEqual([{ a: 1 }]);
    expect(jsonRecords(bytes('{"a":1}\n{"b":2}'), false)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('skips lines that are not valid UTF-8 and keeps their neighbours', () => {
    const window = Buffer.concat([
      bytes('{"a":1}\n{"bad":"'),
      Buffer.from([0xff, 0xfe]),
      bytes('"}\n{"c":3}\n'),
    ]);
    expect(jsonRecords(window, false)).toEqual([{ a: 1 }, { c: 3 }]);
  });
});

describe('displayLine and argument summaries', () => {
  it('strips escapes, folds whitespace and bounds the text with an ellipsis', () => {
    expect(displayLine('\x1b[31mred\x1b[0m\n\n  text\r\n')).toBe('red text');
    const long = displayLine('é'.repeat(500));
    expect(Array.from(long)).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('names what a tool acts on from its most telling argument', () => {
    expect(argumentSummary({ description: 'list', command: 'ls -la' })).toBe('ls -la');
    expect(argumentSummary({ file_path: '/a/b.ts', content: 'x' })).toBe('/a/b.ts');
    expect(argumentSummary({ command: ['bash', '-lc', 'npm test'] })).toBe('npm test');
    expect(argumentSummary({ command: ['git', 'status'] })).toBe('git status');
    expect(argumentSummary({ other: 'value' })).toBe('value');
    expect(argumentSummary({ n: 3 })).toBe('');
    expect(argumentSummary('raw')).toBe('raw');
  });
});

describe('Claude Code records', () => {
  const assistant = (content: unknown, model = 'claude-sonnet-4-5', timestamp = T1) => ({
    type: 'assistant',
    timestamp,
    message: { role: 'assistant', model, content },
  });

  it('take the model from assistant messages and the latest text as activity', () => {
    const facts = transcriptFacts(
      [
        { type: 'user', timestamp: T1, message: { role: 'user', content: 'do it' } },
        assistant([{ type: 'text', text: 'First.' }], 'claude-opus-4-1'),
        assistant([{ type: 'text', text: 'Second \x1b[1mbold\x1b[0m.' }], 'claude-sonnet-4-5', T2),
        { type: 'user', timestamp: T2, message: { role: 'user', content: 'thanks' } },
      ],
      'claude',
    );
    expect(facts).toEqual({
      model: 'claude-sonnet-4-5',
      activity: { at_ms: Date.parse(T2), kind: 'message', text: 'Second bold.' },
    });
  });

  it('report a tool call after text as the latest activity, and skip synthetic models', () => {
    const facts = transcriptFacts(
      [
        assistant([{ type: 'text', text: 'x' }], 'claude-opus-4-1'),
        assistant(
          [
            { type: 'text', text: 'Running the tests.' },
            { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test', description: 'Run' } },
          ],
          '<synthetic>',
        ),
      ],
      'claude',
    );
    expect(facts.model).toBe('claude-opus-4-1');
    expect(facts.activity).toEqual({ at_ms: Date.parse(T1), kind: 'tool', text: 'Bash: npm test' });
  });

  it('fall back to thinking as other activity and to string content as a message', () => {
    expect(
      transcriptFacts([assistant([{ type: 'thinking', thinking: 'Hmm.' }])], 'claude').activity,
    ).toMatchObject({ kind: 'other', text: 'Hmm.' });
    expect(transcriptFacts([assistant('plain')], 'claude').activity).toMatchObject({ kind: 'message' });
    expect(transcriptFacts([assistant([{ type: 'text', text: '   ' }])], 'claude').activity).toBeNull();
  });
});

describe('Codex records', () => {
  const line = (type: string, payload: unknown, timestamp = T1) => ({ timestamp, type, payload });

  it('take the model from turn_context and activity from response items', () => {
    const facts = transcriptFacts(
      [
        line('session_meta', { id: 'x', cwd: '/w' }),
        line('turn_context', { cwd: '/w', model: 'gpt-5-codex' }),
        line('response_item', {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Done.' }],
        }),
        line('response_item', {
          type: 'function_call',
          name: 'exec_command',
          arguments: '{"cmd":"cargo test"}',
          call_id: 'c1',
        }),
        line('response_item', { type: 'function_call_output', call_id: 'c1', output: 'ok' }, T2),
      ],
      'codex',
    );
    expect(facts).toEqual({
      model: 'gpt-5-codex',
      activity: { at_ms: Date.parse(T1), kind: 'tool', text: 'exec_command: cargo test' },
    });
  });

  it('read shell argv, patches, agent messages and reasoning summaries', () => {
    const shell = codexRecord(
      line('response_item', {
        type: 'function_call',
        name: 'shell',
        arguments: '{"command":["bash","-lc","ls"]}',
      }),
    );
    expect(shell.activity?.text).toBe('shell: ls');
    const patch = codexRecord(
      line('response_item', {
        type: 'custom_tool_call',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** Update File: src/a.rs\n@@\n',
      }),
    );
    expect(patch.activity?.text).toBe('apply_patch: src/a.rs');
    expect(codexRecord(line('event_msg', { type: 'agent_message', message: 'Hi' })).activity?.kind).toBe(
      'message',
    );
    const reasoning = codexRecord(
      line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: '**Plan**' }] }),
    );
    expect(reasoning.activity).toMatchObject({ kind: 'other', text: '**Plan**' });
    expect(codexRecord(line('response_item', { type: 'message', role: 'user', content: [] }))).toEqual({});
    expect(codexRecord({ type: 'turn_context' })).toEqual({});
  });
});

describe('Pi records', () => {
  it('take the model from the newest model_change or assistant message, qualified by provider', () => {
    const facts = transcriptFacts(
      [
        { type: 'session', version: 3, id: 's', timestamp: T1, cwd: '/w' },
        {
          type: 'model_change',
          id: 'a',
          parentId: null,
          timestamp: T1,
          provider: 'anthropic',
          modelId: 'm1',
        },
        {
          type: 'message',
          id: 'b',
          parentId: 'a',
          timestamp: T1,
          message: {
            role: 'assistant',
            provider: 'anthropic',
            model: 'm1',
            timestamp: 1_000,
            content: [
              { type: 'text', text: 'Reading.' },
              { type: 'toolCall', id: 'c', name: 'read', arguments: { path: 'src/x.ts' } },
            ],
          },
        },
        { type: 'model_change', id: 'd', parentId: 'b', timestamp: T2, provider: 'openai', modelId: 'gpt-5' },
      ],
      'pi',
    );
    expect(facts).toEqual({
      model: 'openai/gpt-5',
      activity: { at_ms: 1_000, kind: 'tool', text: 'read: src/x.ts' },
    });
  });

  it('uses the entry timestamp when the message has none, and reads Oh My Pi sessions too', () => {
    const record = {
      type: 'message',
      timestamp: T2,
      message: { role: 'assistant', model: 'm', content: [{ type: 'text', text: 'ok' }] },
    };
    expect(transcriptFacts([record], 'omp')).toEqual({
      model: 'm',
      activity: { at_ms: Date.parse(T2), kind: 'message', text: 'ok' },
    });
  });
});

describe('unknown harnesses', () => {
  it('yield no facts, so the caller falls back to pane text', () => {
    expect(transcriptFacts([{ type: 'assistant', message: { model: 'x', content: 'y' } }], 'gemini')).toEqual(
      {
        model: null,
        activity: null,
      },
    );
  });
});
