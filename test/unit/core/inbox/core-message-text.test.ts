// The pure half of the message reader: which source the flags name, how a refusal names it, and
// the one bound and set of refusals every source and verb shares (bytes or text).
import { describe, expect, it } from 'vitest';
import { MESSAGE_MAX_BYTES } from '../../../../service/core/inbox/inbox.js';
import {
  checkedMessage,
  messageFromBytes,
  messageSource,
  sourceName,
} from '../../../../service/core/inbox/message-text.js';

describe('messageSource', () => {
  it('is the flag, a file or stdin, and exactly one of the two flags', () => {
    expect(messageSource({ message: '' })).toEqual({ from: 'flag', text: '' });
    expect(messageSource({ messageFile: 'note.md' })).toEqual({ from: 'file', path: 'note.md' });
    expect(messageSource({ messageFile: '-' })).toEqual({ from: 'stdin' });
    for (const flags of [{}, { message: 'a', messageFile: '-' }]) {
      expect(() => messageSource(flags)).toThrow(
        /^give the text with exactly one of --message and --message-file$/,
      );
    }
  });

  it('is named in a refusal as the user gave it, a path quoted and escape-free', () => {
    expect(sourceName({ from: 'flag', text: 'x' })).toBe('--message');
    expect(sourceName({ from: 'stdin' })).toBe('stdin (--message-file -)');
    expect(sourceName({ from: 'file', path: 'my "notes"\u001b[2J.md' })).toBe(
      '--message-file "my \\"notes\\".md"',
    );
  });
});

describe('messageFromBytes', () => {
  it('decodes UTF-8 as written, a byte-order mark included, up to the bound', () => {
    expect(messageFromBytes(Buffer.from('\ufeffé 🐕\n'), 'w')).toBe('\ufeffé 🐕\n');
    expect(messageFromBytes(Buffer.alloc(MESSAGE_MAX_BYTES, 0x61), 'w')).toHaveLength(MESSAGE_MAX_BYTES);
  });

  it('refuses one byte more, bytes that are not UTF-8, and nothing but whitespace', () => {
    expect(() => messageFromBytes(Buffer.alloc(MESSAGE_MAX_BYTES + 1, 0x61), 'w')).toThrow(
      /^w is over the 4194304-byte limit$/,
    );
    expect(() => messageFromBytes(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'w')).toThrow(
      /^w is not UTF-8 text$/,
    );
    // A truncated sequence at the end is not UTF-8 either.
    expect(() => messageFromBytes(Buffer.from([0x61, 0xf0, 0x9f]), 'w')).toThrow('not UTF-8');
    expect(() => messageFromBytes(Buffer.from(''), 'w')).toThrow(/^w is empty$/);
  });
});

describe('checkedMessage', () => {
  it('counts UTF-8 bytes, not characters', () => {
    expect(checkedMessage('é'.repeat(MESSAGE_MAX_BYTES / 2), 'w')).toHaveLength(MESSAGE_MAX_BYTES / 2);
    expect(() => checkedMessage(`${'é'.repeat(MESSAGE_MAX_BYTES / 2)}x`, 'w')).toThrow(
      'w is over the 4194304-byte limit',
    );
  });

  it('calls text empty when nothing is left once escapes and invisible characters are removed', () => {
    for (const text of ['', ' \n\t', '\u001b[2J\u001b[H', '\u200b\u202e ']) {
      expect(() => checkedMessage(text, 'the message'), JSON.stringify(text)).toThrow(
        /^the message is empty$/,
      );
    }
    expect(checkedMessage(' x ', 'w')).toBe(' x ');
  });
});
