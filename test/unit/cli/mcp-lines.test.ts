// The pure parts of `dogsled mcp`'s line transport: what one line is (jsonrpc-line.ts) and the id
// of a line too long to read (oversize-id.ts), fed in pieces as a pipe delivers them.

import { describe, expect, it } from 'vitest';
import { MCP_LINE_MAX_BYTES, readLine } from '../../../cli/mcp/jsonrpc-line.js';
import { OversizeIdScanner } from '../../../cli/mcp/oversize-id.js';
import { MESSAGE_MAX_BYTES } from '../../../service/core/inbox/inbox.js';

function scan(text: string, pieceBytes = Number.POSITIVE_INFINITY): string | number | null {
  const bytes = Buffer.from(text);
  const scanner = new OversizeIdScanner();
  const step = Number.isFinite(pieceBytes) ? pieceBytes : bytes.length;
  for (let at = 0; at < bytes.length; at += step) scanner.feed(bytes.subarray(at, at + step));
  return scanner.id;
}

describe('OversizeIdScanner', () => {
  it.each([
    ['first', '{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"b"}}', 7],
    [
      'last, after params holding a decoy',
      '{"method":"x","params":{"id":"decoy","l":[{"id":1}]},"id":"real"}',
      'real',
    ],
    ['only nested', '{"method":"x","params":{"id":"decoy"}}', null],
    ['with spaces and newlines around', ' { "id" :\t42 , "method" : "x" }', 42],
    ['a negative integer', '{"id":-3}', -3],
    ['a string with escapes', '{"id":"a\\"b\\\\c\\u00e9","m":1}', 'a"b\\cé'],
    ['under an escaped key', '{"\\u0069d":"escaped-key"}', 'escaped-key'],
    ['a key that only ends in id', '{"xid":1,"idx":2}', null],
    ['a string that holds "id":', '{"m":"\\"id\\":5","id":6}', 6],
    ['the last of two', '{"id":1,"m":"x","id":2}', 2],
    ['an object after a number', '{"id":1,"id":{"a":1}}', null],
    ['fractional', '{"id":1.5}', null],
    ['past 2^53', '{"id":123456789012345678901234567890}', null],
    ['true', '{"id":true}', null],
    ['null', '{"id":null}', null],
    ['an array message', '[{"id":1}]', null],
    ['not JSON', 'garbage "id":1', null],
    ['an id over 1 KiB', `{"id":"${'x'.repeat(2000)}"}`, null],
    ['a multi-byte id', '{"p":"ü","id":"ü-1"}', 'ü-1'],
  ])('finds the top-level id: %s', (_what, text, id) => {
    expect(scan(text)).toEqual(id);
    // Fed a byte at a time, as a pipe may cut it: the same id.
    expect(scan(text, 1)).toEqual(id);
    expect(scan(text, 3)).toEqual(id);
  });

  it('stops at the end of the top-level object', () => {
    expect(scan('{"m":1} {"id":9}')).toBeNull();
  });
});

describe('readLine', () => {
  const line = (text: string) => readLine(Buffer.from(text));

  it('delivers a message, and ignores a blank line', () => {
    expect(line('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({
      message: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(line('{"jsonrpc":"2.0","method":"x"}\r')).toEqual({ message: { jsonrpc: '2.0', method: 'x' } });
    expect(line(' \t\r')).toEqual({ blank: true });
    expect(line('')).toEqual({ blank: true });
  });

  it('answers what is not one message with JSON-RPC codes and the id when usable', () => {
    const answer = (text: string) => {
      const outcome = line(text);
      if (!('answer' in outcome)) throw new Error(`no answer for ${text}`);
      return [outcome.answer.id, outcome.answer.error.code];
    };
    expect(answer('{')).toEqual([null, -32700]);
    expect(answer('[]')).toEqual([null, -32600]);
    expect(answer('7')).toEqual([null, -32600]);
    expect(answer('{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}')).toEqual([null, -32600]);
    expect(answer('{"jsonrpc":"2.0","id":9007199254740991,"method":"ping","x":1}')).toEqual([
      9007199254740991, -32600,
    ]);
    expect(answer('{"jsonrpc":"2.0","id":"s","params":{}}')).toEqual(['s', -32600]);
  });

  it('says "not UTF-8" for bytes that are not, rather than reading U+FFFD', () => {
    const outcome = readLine(Buffer.from([0x7b, 0xff, 0x7d]));
    expect(outcome).toMatchObject({ answer: { id: null, error: { code: -32700 } } });
    expect(JSON.stringify(outcome)).toContain('not UTF-8');
  });

  it('quotes nothing raw from the line in its message', () => {
    const outcome = line('\u001b]0;pwned\u0007');
    expect(outcome).toMatchObject({ answer: { error: { code: -32700 } } });
    expect(JSON.stringify(outcome)).not.toMatch(/\\u001b|\\u0007/);
  });
});

it('the bound admits send’s largest message with every byte written as \\uXXXX, and 1 MiB besides', () => {
  expect(MCP_LINE_MAX_BYTES).toBe(6 * MESSAGE_MAX_BYTES + 1024 * 1024);
  expect(MCP_LINE_MAX_BYTES).toBe(25 * 1024 * 1024);
});
