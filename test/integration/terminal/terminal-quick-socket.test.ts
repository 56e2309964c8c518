// The lean commands' Herdr call (quickSocketCall) and the pipe handle under it (pipe-handle.ts),
// against small in-test servers, some misbehaving on purpose: a reply exactly as socketCall reads
// it, and for every fault undefined (the full command then calls again and words it), promptly,
// never a hang, a throw or an aborted process.

import { execFileSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pipeExchange, pipeTouch } from '../../../service/process/pipe-handle.js';
import { quickSocketCall, socketCall } from '../../../service/terminal/herdr/herdr-socket.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
let servers: Server[] = [];

beforeEach(async () => {
  dir = await tempDir('dogsled-quick-sock-');
});

afterEach(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  servers = [];
  await rm(dir, { recursive: true, force: true });
});

/** A server that hands the first request line (parsed, and its socket) to `onLine`; records the lines. */
async function serve(onLine: (request: Record<string, unknown>, socket: Socket) => void) {
  const path = join(dir, `h${servers.length}.sock`);
  const lines: string[] = [];
  const server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline === -1 || lines.length > 0) return;
      lines.push(buffer.slice(0, newline));
      onLine(JSON.parse(buffer.slice(0, newline)), socket);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, lines };
}

/** Writes `bytes` in pieces of `size`, each on a later turn of the server's loop. */
async function inPieces(socket: Socket, bytes: Buffer, size: number, end = true) {
  for (let at = 0; at < bytes.length; at += size) {
    socket.write(bytes.subarray(at, at + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (end) socket.end();
}

const snapshot = (id: unknown, extra: object = {}) => ({
  id,
  result: { type: 'session_snapshot', snapshot: { workspaces: [], panes: [], ...extra } },
});

describe('a reachable server', () => {
  it('one request line with a fresh id, and the reply socketCall reads from the same server', async () => {
    const { path, lines } = await serve((request, socket) =>
      socket.end(`${JSON.stringify(snapshot(request.id))}\n`),
    );
    const quick = await quickSocketCall(path, 'session.snapshot', {}, 5_000);
    const request = JSON.parse(lines[0] ?? '');
    expect(request).toMatchObject({ method: 'session.snapshot', params: {} });
    expect(String(request.id)).toMatch(/^dogsled:\d+:\d+$/);
    const other = await serve((request, socket) => socket.end(`${JSON.stringify(snapshot(request.id))}\n`));
    expect(quick).toEqual(await socketCall(other.path, 'session.snapshot', {}));
  });

  it('a large reply in small pieces, multibyte characters and escape sequences split across them', async () => {
    const label = `é✓𝄞 \u001b[31mred\u001b[0m \u001b]0;title\u0007 "q" \\ `.repeat(20_000);
    const { path } = await serve((request, socket) => {
      const reply = Buffer.from(`${JSON.stringify(snapshot(request.id, { label }))}\n`);
      void inPieces(socket, reply, 4_093);
    });
    const reply = await quickSocketCall(path, 'session.snapshot', {}, 30_000);
    expect(reply).toEqual(snapshot(undefined, { label }).result);
  });

  it('a reply whose line ends at the close, without its newline: read as socketCall reads it', async () => {
    const { path } = await serve((request, socket) => socket.end(JSON.stringify(snapshot(request.id))));
    expect(await quickSocketCall(path, 'session.snapshot', {}, 5_000)).toEqual(snapshot(0).result);
  });

  it('only the first line counts: what follows it is not read', async () => {
    const { path } = await serve((request, socket) => {
      socket.end(`${JSON.stringify(snapshot(request.id))}\nnot json at all\n`);
    });
    expect(await quickSocketCall(path, 'session.snapshot', {}, 5_000)).toEqual(snapshot(0).result);
  });
});

describe('every fault is undefined', () => {
  const cases: [string, (request: Record<string, unknown>, socket: Socket) => void][] = [
    ['closed without a reply', (_request, socket) => socket.destroy()],
    ['an empty line', (_request, socket) => socket.end('\n')],
    ['malformed JSON', (_request, socket) => socket.end('this is not json\n')],
    [
      'a truncated reply at the close',
      (request, socket) => socket.end(`{"id":${JSON.stringify(request.id)},"res`),
    ],
    ['a JSON value that is no envelope', (_request, socket) => socket.end('[1,2,3]\n')],
    [
      'a reply to another id',
      (_request, socket) => socket.end(`${JSON.stringify(snapshot('dogsled:1:1'))}\n`),
    ],
    [
      'an error envelope',
      (request, socket) =>
        socket.end(`${JSON.stringify({ id: request.id, error: { code: 'nope', message: 'no' } })}\n`),
    ],
  ];
  for (const [what, reply] of cases) {
    it(what, async () => {
      const { path } = await serve(reply);
      expect(await quickSocketCall(path, 'session.snapshot', {}, 5_000)).toBeUndefined();
    });
  }

  it('no reply within the deadline: undefined, and the connection closed', async () => {
    let closed: Promise<void> | undefined;
    const { path } = await serve((_request, socket) => {
      closed = new Promise((resolve) => socket.on('close', () => resolve()));
    });
    expect(await quickSocketCall(path, 'session.snapshot', {}, 150)).toBeUndefined();
    await closed;
  });

  it('more than the bound without a newline: undefined', async () => {
    const { path } = await serve((_request, socket) => {
      socket.on('error', () => {});
      void inPieces(socket, Buffer.alloc(256 * 1024, 'x'), 16 * 1024, false);
    });
    expect(await pipeExchange(path, '{}\n', { timeoutMs: 30_000, maxBytes: 64 * 1024 })).toBeUndefined();
  });

  it('a missing socket, a regular file, a directory, a socket nobody listens on', async () => {
    const file = join(dir, 'file.sock');
    await writeFile(file, 'not a socket');
    const stale = join(dir, 'stale.sock');
    // Bound but never listening: the file exists and every connect is refused.
    execFileSync('python3', [
      '-c',
      'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])',
      stale,
    ]);
    for (const path of [join(dir, 'absent.sock'), file, dir, stale]) {
      expect({ path, reply: await quickSocketCall(path, 'session.snapshot', {}, 10_000) }).toEqual({
        path,
        reply: undefined,
      });
      expect({ path, touched: await pipeTouch(path, 10_000) }).toEqual({ path, touched: false });
    }
  });
});

describe('pipeTouch', () => {
  it('connects to a listening socket, then hangs up', async () => {
    const path = join(dir, 'sweep.sock');
    let connections = 0;
    const ended = new Promise<void>((resolve) => {
      const server = createServer((socket) => {
        connections++;
        socket.on('close', () => resolve());
      });
      servers.push(server);
      server.listen(path);
    });
    while (!(await pipeTouch(path, 10_000))) await new Promise((resolve) => setTimeout(resolve, 20));
    await ended;
    expect(connections).toBe(1);
  });
});
