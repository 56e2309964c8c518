// The Herdr socket client against small in-test servers that misbehave on purpose: every fault
// must end as a typed TerminalError, promptly, and never as a hang or a plain Error.

import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { socketCall } from '../../../service/terminal/herdr/herdr-socket.js';
import { TerminalError } from '../../../service/terminal/terminal-errors.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
let servers: Server[] = [];

beforeEach(async () => {
  dir = await tempDir('dogsled-sock-');
});

afterEach(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  servers = [];
  await rm(dir, { recursive: true, force: true });
});

/** A server that hands each request line (and its socket) to `onLine`; records connections. */
async function serve(onLine: (request: Record<string, unknown>, socket: Socket, raw: string) => void) {
  const path = join(dir, `h${servers.length}.sock`);
  const lines: string[][] = [];
  const server = createServer((socket) => {
    const seen: string[] = [];
    lines.push(seen);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        seen.push(line);
        if (seen.length === 1) onLine(JSON.parse(line), socket, line);
        newline = buffer.indexOf('\n');
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, lines };
}

async function failure(promise: Promise<unknown>): Promise<TerminalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

describe('a reachable server', () => {
  it('sends one request line per connection with params and a fresh id, and returns the result', async () => {
    const { path, lines } = await serve((request, socket) => {
      socket.end(
        `${JSON.stringify({ id: request.id, result: { type: 'pong', version: '0.8.0', protocol: 20 } })}\n`,
      );
    });
    const first = await socketCall(path, 'ping', {});
    const second = await socketCall(path, 'pane.get', { pane_id: 'w1:p1' });
    expect(first).toEqual({ type: 'pong', version: '0.8.0', protocol: 20 });
    expect(second.type).toBe('pong');
    expect(lines).toHaveLength(2);
    const [a, b] = lines.map((seen) => JSON.parse(seen[0]!));
    expect(a).toMatchObject({ method: 'ping', params: {} });
    expect(b).toMatchObject({ method: 'pane.get', params: { pane_id: 'w1:p1' } });
    expect(a.id).not.toBe(b.id);
  });

  it('accepts a reply whose newline is missing when the server closes right after it', async () => {
    const { path } = await serve((request, socket) => {
      socket.end(JSON.stringify({ id: request.id, result: { type: 'ok' } }));
    });
    expect(await socketCall(path, 'pane.close', { pane_id: 'w1:p2' })).toEqual({ type: 'ok' });
  });

  it('turns an error envelope into a TerminalError with Herdr code and message', async () => {
    const { path } = await serve((request, socket) => {
      socket.end(
        `${JSON.stringify({ id: request.id, error: { code: 'pane_not_found', message: 'pane w1:p9 not found' } })}\n`,
      );
    });
    const error = await failure(socketCall(path, 'pane.get', { pane_id: 'w1:p9' }));
    expect(error.code).toBe('pane_not_found');
    expect(error.method).toBe('pane.get');
    expect(error.message).toBe('herdr pane.get: pane w1:p9 not found');
    expect(error.exitCode).toBe(2);
  });

  it('reads invalid_request answered with an empty id as that error, not as a mismatched reply', async () => {
    const { path } = await serve((_request, socket) => {
      socket.end(
        `${JSON.stringify({ id: '', error: { code: 'invalid_request', message: 'invalid request: unknown method' } })}\n`,
      );
    });
    const error = await failure(socketCall(path, 'pane.nope', {}));
    expect(error.code).toBe('invalid_request');
  });

  it('keeps a code it does not know as `other` with the raw code', async () => {
    const { path } = await serve((request, socket) => {
      socket.end(
        `${JSON.stringify({ id: request.id, error: { code: 'brand_new_code', message: 'new' } })}\n`,
      );
    });
    const error = await failure(socketCall(path, 'pane.get', {}));
    expect(error.code).toBe('other');
    expect(error.herdrCode).toBe('brand_new_code');
  });

  it('rejects a successful reply that echoes another id', async () => {
    const { path } = await serve((_request, socket) => {
      socket.end(`${JSON.stringify({ id: 'someone-else', result: { type: 'ok' } })}\n`);
    });
    expect((await failure(socketCall(path, 'pane.close', {}))).code).toBe('protocol');
  });
});

describe('a misbehaving server', () => {
  it('answering too slowly fails with timeout at the client deadline', async () => {
    const { path } = await serve(() => {});
    const error = await failure(socketCall(path, 'workspace.list', {}, { timeoutMs: 150 }));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('no reply within 150 ms');
  });

  it('answering with malformed JSON fails as protocol', async () => {
    const { path } = await serve((_request, socket) => socket.end('this is not json\n'));
    const error = await failure(socketCall(path, 'workspace.list', {}));
    expect(error.code).toBe('protocol');
    expect(error.message).toContain('malformed reply');
  });

  it('closing after a truncated JSON reply fails as protocol', async () => {
    const { path } = await serve((request, socket) => {
      socket.end(`{"id":${JSON.stringify(request.id)},"result":{"type":"workspace_li`);
    });
    const error = await failure(socketCall(path, 'workspace.list', {}));
    expect(error.code).toBe('protocol');
    expect(error.message).toContain('truncated reply');
  });

  it('closing without any reply fails as protocol', async () => {
    const { path } = await serve((_request, socket) => socket.destroy());
    const error = await failure(socketCall(path, 'workspace.list', {}));
    expect(error.code).toBe('protocol');
    expect(error.message).toContain('closed without a reply');
  });

  it('answering a JSON value that is no envelope fails as protocol', async () => {
    const { path } = await serve((_request, socket) => socket.end('[1,2,3]\n'));
    expect((await failure(socketCall(path, 'workspace.list', {}))).code).toBe('protocol');
  });
});

describe('no server', () => {
  it('a missing socket is unreachable at once', async () => {
    const error = await failure(socketCall(join(dir, 'absent.sock'), 'ping', {}, { timeoutMs: 10_000 }));
    expect(error.code).toBe('unreachable');
    expect(error.message).toContain('does not exist');
  });

  it('a socket nobody listens on is unreachable at once (connection refused)', async () => {
    const path = join(dir, 'stale.sock');
    // Bound but never listening: the file exists and every connect is refused.
    execFileSync('python3', [
      '-c',
      'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])',
      path,
    ]);
    const error = await failure(socketCall(path, 'ping', {}, { timeoutMs: 10_000 }));
    expect(error.code).toBe('unreachable');
    expect(error.message).toContain('refused the connection');
  });

  it('an aborted call rejects with the abort reason and closes the connection', async () => {
    let closed = false;
    const { path } = await serve((_request, socket) => socket.on('close', () => (closed = true)));
    const controller = new AbortController();
    const call = socketCall(path, 'agent.wait', { target: 'x' }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(call).rejects.toThrow('stop');
    await expect.poll(() => closed).toBe(true);
  });
});

describe('a reply the same as the last (SameReply)', () => {
  /** A server answering each request with `answer(id)`, the line as it is sent. */
  const answering = (answer: (id: string) => string) =>
    serve((request, socket) => socket.end(`${answer(String(request.id))}\n`));
  const listing = (title: string) => ({ type: 'session_snapshot', snapshot: { panes: [{ title }] } });

  it('hands back the last reply object when only the id differs, and parses a changed byte afresh', async () => {
    let title = 'quiet \u001b[31mred\u001b[0m';
    const { path } = await answering((id) => JSON.stringify({ id, result: listing(title) }));
    const same = {};
    const a = await socketCall(path, 'session.snapshot', {}, { same });
    const b = await socketCall(path, 'session.snapshot', {}, { same });
    expect(b).toBe(a);
    title = 'quiet \u001b[32mred\u001b[0m';
    const c = await socketCall(path, 'session.snapshot', {}, { same });
    expect(c).not.toBe(a);
    expect(c).toEqual(listing(title));
    expect(await socketCall(path, 'session.snapshot', {}, { same })).toBe(c);
  });

  it('parses every reply whose id does not lead its line, and refuses a stale id as always', async () => {
    let stale: string | undefined;
    let order: 'result-first' | 'stale' = 'result-first';
    const { path } = await answering((id) => {
      if (order === 'stale') return JSON.stringify({ id: stale, result: listing(String(stale)) });
      stale = id;
      // The request's own id inside the result too: only the envelope's is compared.
      return JSON.stringify({ result: listing(id), id });
    });
    const same = {};
    const a = await socketCall(path, 'session.snapshot', {}, { same });
    const b = await socketCall(path, 'session.snapshot', {}, { same });
    expect(b).not.toBe(a);
    expect(b).toEqual(listing(String(stale)));
    order = 'stale';
    const error = await failure(socketCall(path, 'session.snapshot', {}, { same }));
    expect(error.code).toBe('protocol');
    expect(error.message).toContain('does not match request');
  });

  it('an error envelope between two same replies is still the error, and a huge listing is compared, not parsed', async () => {
    let mode: 'big' | 'error' = 'big';
    const big = listing('x'.repeat(2 * 1024 * 1024));
    const { path } = await answering((id) =>
      mode === 'error'
        ? JSON.stringify({ id, error: { code: 'internal', message: 'boom' } })
        : JSON.stringify({ id, result: big }),
    );
    const same = {};
    const a = await socketCall(path, 'session.snapshot', {}, { same });
    expect(await socketCall(path, 'session.snapshot', {}, { same })).toBe(a);
    mode = 'error';
    await failure(socketCall(path, 'session.snapshot', {}, { same }));
    mode = 'big';
    // The error changed nothing the memo holds: the same bytes again are the same reply.
    const c = await socketCall(path, 'session.snapshot', {}, { same });
    expect(c).toBe(a);
    expect(c).toEqual(big);
  });
});
