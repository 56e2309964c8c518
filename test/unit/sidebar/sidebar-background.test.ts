// The terminal's answer to the background question (OSC 11) is taken out of the keys blessed reads,
// in one piece or several; everything else reaches blessed exactly as it came, chunk for chunk (an
// Escape alone must not become the Alt of the key after it).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { askBackground } from '../../../sidebar/background.js';
import type { Background } from '../../../sidebar/model/theme.js';

function terminal(boundMs = 60_000) {
  const input = new PassThrough() as unknown as NodeJS.ReadStream;
  const output = new PassThrough();
  const written: string[] = [];
  output.on('data', (d: Buffer) => written.push(d.toString('latin1')));
  const keys: string[] = [];
  input.on('data', (d: Buffer | string) => keys.push(Buffer.isBuffer(d) ? d.toString('latin1') : d));
  const answers: Background[] = [];
  const stop = askBackground(input, output as unknown as NodeJS.WriteStream, (b) => answers.push(b), boundMs);
  const type = (text: string) => input.emit('data', Buffer.from(text, 'latin1'));
  return { type, keys, answers, written, stop };
}

describe('the background question', () => {
  it('asks with OSC 11 and takes the reply out of the keys, in one chunk', () => {
    const t = terminal();
    expect(t.written.join('')).toBe('\u001b]11;?\u001b\\');
    t.type('j\u001b]11;rgb:ffff/ffff/ffff\u001b\\k');
    expect(t.answers).toEqual(['light']);
    expect(t.keys).toEqual(['jk']);
    // Answered once: later input is not looked at.
    t.type('\u001b]11;rgb:0000/0000/0000\u0007');
    expect(t.answers).toEqual(['light']);
  });

  it('takes a reply that arrives in pieces, hex digits (a `d`) never reaching the keys', () => {
    const t = terminal();
    for (const piece of ['\u001b', ']1', '1;rgb:dd', 'dd/dddd/', 'dddd\u001b', '\\']) t.type(piece);
    expect(t.answers).toEqual(['light']);
    expect(t.keys.join('')).toBe('');
  });

  it('lets an Escape alone through as its own chunk, not as the Alt of the next key', () => {
    const t = terminal();
    t.type('\u001b');
    t.type('m');
    expect(t.keys).toEqual(['\u001b', 'm']);
    expect(t.answers).toEqual([]);
  });

  it('passes what it held when the bound passes without a reply, and stops looking', async () => {
    const t = terminal(20);
    t.type('\u001b]11;rgb:00');
    expect(t.keys).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(t.keys).toEqual(['\u001b]11;rgb:00']);
    t.type('\u001b]11;rgb:ffff/ffff/ffff\u0007');
    expect(t.answers).toEqual([]);
  });
});
