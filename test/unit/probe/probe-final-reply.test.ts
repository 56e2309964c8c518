// A finished child's final reply from its transcript (probe/transcripts/reply.ts): the last assistant
// message, whole, for each harness's format; escapes stripped; nothing for a file without one.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLY_MAX_CHARS, readFinalReply } from '../../../service/probe/transcripts/reply.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir('dogsled-reply-');
});
afterAll(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(dir, { recursive: true, force: true });
});

async function transcript(name: string, records: unknown[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return path;
}

describe('readFinalReply', () => {
  it('Claude: the last assistant text blocks, joined, without escapes', async () => {
    const path = await transcript('c.jsonl', [
      { type: 'assistant', message: { content: [{ type: 'text', text: 'first' }] } },
      { type: 'user', message: { content: 'go on' } },
      {
        type: 'assistant',
        message: {
          content: [
            { type: 'text', text: 'Done:\n- a \u001b[31mred\u001b[0m b' },
            { type: 'tool_use', name: 'x' },
          ],
        },
      },
    ]);
    expect(await readFinalReply(path, 'claude')).toBe('Done:\n- a red b');
  });

  it('Pi: the last assistant message', async () => {
    const path = await transcript('p.jsonl', [
      { type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'Pi reply.' }] } },
      { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'ignored' }] } },
    ]);
    expect(await readFinalReply(path, 'pi')).toBe('Pi reply.');
  });

  it('Codex: the last agent_message or assistant message item', async () => {
    const path = await transcript('x.jsonl', [
      {
        type: 'response_item',
        payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'older' }] },
      },
      { type: 'event_msg', payload: { type: 'agent_message', message: 'Codex reply.' } },
    ]);
    expect(await readFinalReply(path, 'codex')).toBe('Codex reply.');
  });

  it('nothing for an unknown harness, a missing file, a directory or a transcript without a reply', async () => {
    const none = await transcript('n.jsonl', [{ type: 'user', message: { content: 'hi' } }]);
    expect(await readFinalReply(none, 'claude')).toBeNull();
    expect(await readFinalReply(none, 'vim')).toBeNull();
    expect(await readFinalReply(join(dir, 'absent.jsonl'), 'pi')).toBeNull();
    expect(await readFinalReply(dir, 'pi')).toBeNull();
  });

  it('cuts a huge reply', async () => {
    const path = await transcript('h.jsonl', [
      { type: 'assistant', message: { content: [{ type: 'text', text: 'x'.repeat(REPLY_MAX_CHARS * 2) }] } },
    ]);
    const reply = await readFinalReply(path, 'claude');
    expect(reply?.length).toBe(REPLY_MAX_CHARS);
    expect(reply?.endsWith('…')).toBe(true);
  });
});
