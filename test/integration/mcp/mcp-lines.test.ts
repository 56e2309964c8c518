// `dogsled mcp` read line by line under hostile input, through the built bundle and raw pipes: the
// largest legal message in its most escaped form is read, a longer line is answered with an error
// naming its request (never the server's end), every line that is not one JSON-RPC message gets
// JSON-RPC's answer, a burst is answered in full, and only the end of stdin ends the session.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCP_LINE_MAX_BYTES } from '../../../cli/mcp/jsonrpc-line.js';
import { MESSAGE_MAX_BYTES } from '../../../service/core/inbox/inbox.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { type Answer, type RawMcp, startRawMcp } from '../../helpers/mcp-raw.js';

let box: Sandbox;
let server: RawMcp | undefined;

beforeEach(async () => {
  box = await sandbox({ DOGSLED_TEST: '1' });
});

afterEach(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGKILL');
    await server.end();
  }
  server = undefined;
  await box.cleanup();
});

async function mcp(): Promise<RawMcp> {
  server = await startRawMcp(box.env, box.root);
  return server;
}

/** Any control character: an answer is one escape-free line. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function sendCall(id: string, message: string): Record<string, unknown> {
  // Params first and the id last, as the TypeScript SDK's client writes a request.
  return {
    jsonrpc: '2.0',
    method: 'tools/call',
    params: { name: 'send', arguments: { target: 'nobody', message } },
    id,
  };
}

function expectError(answer: Answer, id: string | number | null, code: number, text?: RegExp): void {
  expect(answer.id).toBe(id);
  expect(answer.error.code, JSON.stringify(answer)).toBe(code);
  expect(answer.error.message).toMatch(/^dogsled: mcp: /);
  expect(answer.error.message).not.toMatch(CONTROL);
  if (text) expect(answer.error.message).toMatch(text);
}

async function stillServing(session: RawMcp, id: string): Promise<void> {
  await session.send({ jsonrpc: '2.0', id, method: 'ping' });
  expect((await session.answer(id)).result).toEqual({});
  expect(session.child.exitCode).toBeNull();
}

describe('a long line', () => {
  it('up to the bound is read whole, escaped as Python escapes; past it, it is answered and skipped', async () => {
    const session = await mcp();
    // The most escaped form of a message one byte over send's limit: every byte a control
    // character, written \u0001 (six bytes each), as JSON.stringify and Python's json.dumps do.
    const worst = `${JSON.stringify(sendCall('worst', '\u0001'.repeat(MESSAGE_MAX_BYTES + 1)))}\n`;
    expect(worst.length).toBeGreaterThan(24 * 1024 * 1024);
    expect(worst.length).toBeLessThanOrEqual(MCP_LINE_MAX_BYTES);
    await session.write(worst);
    // The tool read the message whole: its own size refusal counts every byte.
    const answer = await session.answer('worst', 60_000);
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0].text).toBe(
      `dogsled: send: the message is over the ${MESSAGE_MAX_BYTES}-byte limit`,
    );

    // The case: a legal 4 MiB message, non-ASCII, as Python's json.dumps writes it (12 MiB).
    const python = JSON.stringify(sendCall('python', 'é'.repeat(MESSAGE_MAX_BYTES / 2))).replaceAll(
      'é',
      '\\u00e9',
    );
    expect(python.length).toBeGreaterThan(12 * 1024 * 1024);
    await session.write(`${python}\n`);
    const legal = await session.answer('python', 60_000);
    expect(legal.result.content[0].text).not.toMatch(/bytes/);

    // Over the bound: answered with the top-level id (after the params, past a nested decoy id).
    const over = JSON.stringify({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: {
        name: 'send',
        arguments: { target: 'x', message: 'x'.repeat(MCP_LINE_MAX_BYTES), id: 'decoy' },
      },
      id: 'too-big',
    });
    await session.write(`${over}\n`);
    expectError(
      await session.answer('too-big', 60_000),
      'too-big',
      -32600,
      new RegExp(`the message is ${over.length} bytes, over the ${MCP_LINE_MAX_BYTES} bytes \\(25 MiB\\)`),
    );
    // Not JSON at all, and over the bound: id null.
    await session.write(`${'y'.repeat(MCP_LINE_MAX_BYTES + 10)}\n`);
    expectError(await session.answer(null, 60_000), null, -32600, /over the/);

    await stillServing(session, 'after');
    expect(session.stderr()).toBe('');
    expect(await session.end()).toEqual({ code: 0, signal: null });
  }, 120_000);
});

describe('lines that are not one JSON-RPC message', () => {
  const NOT_ONE: Array<[string, string | Buffer, string | null, number, RegExp]> = [
    ['not JSON', 'garbage', null, -32700, /parse error/],
    [
      'a raw NUL',
      Buffer.from('{"jsonrpc":"2.0","id":"nul","method":"ping"\u0000}'),
      null,
      -32700,
      /parse error/,
    ],
    [
      'bytes that are not UTF-8',
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":"utf8","method":"p'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]),
      null,
      -32700,
      /not UTF-8/,
    ],
    ['an empty batch', '[]', null, -32600, /batch/],
    ['a batch', '[{"jsonrpc":"2.0","id":"in-batch","method":"ping"}]', null, -32600, /batch/],
    ['a number', '42', null, -32600, /not number/],
    ['a string', '"ping"', null, -32600, /not string/],
    ['null', 'null', null, -32600, /not null/],
    [
      'an id past 2^53',
      '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
      null,
      -32600,
      /"id"/,
    ],
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null, -32600, /"id"/],
    ['an object id', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', null, -32600, /"id"/],
    ['JSON-RPC 1.0', '{"jsonrpc":"1.0","id":"v1","method":"ping"}', 'v1', -32600, /"jsonrpc"/],
    ['no jsonrpc', '{"id":"bare","method":"ping"}', 'bare', -32600, /"jsonrpc"/],
    [
      'an unknown member',
      '{"jsonrpc":"2.0","id":"extra","method":"ping","x\\u001b[2J":1}',
      'extra',
      -32600,
      /unknown member "x"/,
    ],
    [
      'params that are an array',
      '{"jsonrpc":"2.0","id":"arr","method":"ping","params":[1]}',
      'arr',
      -32600,
      /"params"/,
    ],
    ['a method that is a number', '{"jsonrpc":"2.0","id":"num","method":5}', 'num', -32600, /"method"/],
    ['neither method nor result', '{"jsonrpc":"2.0","id":"nothing"}', 'nothing', -32600, /not a request/],
    [
      'tools/call without params',
      '{"jsonrpc":"2.0","id":"no-params","method":"tools/call"}',
      'no-params',
      -32602,
      /^dogsled: mcp: tools\/call: invalid params: params: /,
    ],
    [
      'tools/call with arguments that are not an object',
      '{"jsonrpc":"2.0","id":"bad-args","method":"tools/call","params":{"name":"status","arguments":"x"}}',
      'bad-args',
      -32602,
      /params\.arguments: /,
    ],
    [
      'initialize without params',
      '{"jsonrpc":"2.0","id":"bad-init","method":"initialize"}',
      'bad-init',
      -32602,
      /initialize: invalid params/,
    ],
    ['an unknown method', '{"jsonrpc":"2.0","id":"unknown","method":"no/such"}', 'unknown', -32601, /./],
    [
      'an escaped NUL in the method',
      '{"jsonrpc":"2.0","id":"nul-escaped","method":"ping\\u0000"}',
      'nul-escaped',
      -32601,
      /./,
    ],
  ];

  it('are each answered as JSON-RPC says, in one clean line, and the server keeps serving', async () => {
    const session = await mcp();
    // Ignored: blank lines, a response to nothing, a notification the server cannot use.
    await session.write('\n  \r\n');
    await session.write('{"jsonrpc":"2.0","id":"stray","result":{}}\n');
    await session.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}\n');
    for (const [what, line, id, code, text] of NOT_ONE) {
      await session.write(Buffer.concat([Buffer.from(line), Buffer.from('\n')]));
      const answer = await session.answer(id, 15_000).catch((error: Error) => {
        throw new Error(`${what}: ${error.message}`);
      });
      expect(answer.id, what).toBe(id);
      expect(answer.error?.code, `${what}: ${JSON.stringify(answer)}`).toBe(code);
      expect(answer.error.message, what).toMatch(text);
      expect(answer.error.message, what).not.toMatch(CONTROL);
    }
    // A huge string id is a legal id: echoed whole.
    const long = 'i'.repeat(100_000);
    await session.send({ jsonrpc: '2.0', id: long, method: 'ping' });
    expect((await session.answer(long)).result).toEqual({});
    await stillServing(session, 'after');
    // One answer per answered line, nothing for the ignored ones.
    expect(session.answers()).toHaveLength(1 + NOT_ONE.length + 2);
    expect(session.stderr()).toBe('');
    expect(await session.end()).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('a burst of 1000 requests in one write is answered in full, each id once', async () => {
    const session = await mcp();
    const kinds = [
      (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' }),
      (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' }),
      (id: number) => ({ jsonrpc: '2.0', id, method: 'no/such' }),
      (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call' }),
    ];
    const lines = Array.from({ length: 1000 }, (_, id) => JSON.stringify(kinds[id % 4]?.(id)));
    await session.write(`${lines.join('\n')}\n`);
    const answers = await session.count(1001);
    const byId = new Map(answers.filter((a) => typeof a.id === 'number').map((a) => [a.id as number, a]));
    expect(byId.size).toBe(1000);
    for (let id = 0; id < 1000; id++) {
      const answer = byId.get(id);
      if (id % 4 === 0) expect(answer.result).toEqual({});
      if (id % 4 === 1) expect(answer.result.tools.length).toBeGreaterThan(0);
      if (id % 4 === 2) expect(answer.error.code).toBe(-32601);
      if (id % 4 === 3) expect(answer.error.code).toBe(-32602);
    }
    expect(await session.end()).toEqual({ code: 0, signal: null });
  }, 60_000);
});

describe('the end of input', () => {
  it('mid-line: a complete last message is answered, a cut one is a parse error, then exit 0', async () => {
    const session = await mcp();
    await session.write('{"jsonrpc":"2.0","id":"last","method":"ping"}');
    expect(session.child.exitCode).toBeNull();
    session.child.stdin.end();
    expect((await session.answer('last')).result).toEqual({});
    expect(await session.end()).toEqual({ code: 0, signal: null });

    const cut = await mcp();
    await cut.write('{"jsonrpc":"2.0","id":"cut","meth');
    cut.child.stdin.end();
    expectError(await cut.answer(null), null, -32700);
    expect(await cut.end()).toEqual({ code: 0, signal: null });
    expect(cut.stderr()).toBe('');
  }, 60_000);

  it('in the middle of an oversize line: it is answered, then exit 0', async () => {
    const session = await mcp();
    await session.write(
      `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"x":"${'z'.repeat(MCP_LINE_MAX_BYTES)}`,
    );
    session.child.stdin.end();
    expectError(await session.answer('huge', 60_000), 'huge', -32600, /over the/);
    expect(await session.end()).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('a client that stops reading ends the session with one line on stderr, not a crash', async () => {
    const session = await mcp();
    session.child.stdout.destroy();
    await session.send({ jsonrpc: '2.0', id: 'unread', method: 'ping' });
    expect(await session.end()).toEqual({ code: 0, signal: null });
    expect(session.stderr()).toMatch(/^dogsled: mcp: stdout: .*EPIPE.*; the session ends\n$/);
  }, 30_000);
});
