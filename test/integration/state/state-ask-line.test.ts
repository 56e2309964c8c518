// askLine (service/process/pipe-handle.ts): one question and its one-line answer on a socket in
// the state dir through node:net's pipe handle, which a run's claim on supervisor.sock uses instead
// of node:net. Every way a peer can fail to answer must come back as an outcome, never a hang or a
// crash of the asking process: nothing at the path, a directory or FIFO there, a stale socket, a
// peer that hangs up, one that never answers, one that talks past the bound, an abort.

import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { askLine, type LineAnswer } from '../../../service/process/pipe-handle.js';
import { tempDir } from '../../helpers/tree.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

/** A server on a fresh socket path that hands each connection and what it heard to `onLine`. */
async function serve(onLine: (socket: Socket, heard: string) => void): Promise<string> {
  const path = join(await tempDir(), 's.sock');
  const server = createServer((socket) => {
    let heard = '';
    socket.setEncoding('latin1');
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      heard += chunk;
      if (heard.includes('\n')) onLine(socket, heard);
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(path, done));
  return path;
}

function ask(path: string, options: { waitMs?: number; signal?: AbortSignal } = {}): Promise<LineAnswer> {
  const asked = askLine(path, 'j_abc\n', {
    waitMs: options.waitMs ?? 5_000,
    maxBytes: 64,
    signal: options.signal,
  });
  if (asked === undefined) throw new Error('this Node has no pipe handle as expected');
  return asked;
}

describe('askLine', () => {
  test('writes the question and gives back the answer line', async () => {
    const path = await serve((socket, heard) => socket.end(`ok ${heard.length}\n`));
    expect(await ask(path)).toEqual({ kind: 'answer', text: 'ok 6\n' });
  });

  test('an answer split over several writes is read whole', async () => {
    const path = await serve((socket) => {
      socket.write('o');
      setImmediate(() => socket.end('k 42\n'));
    });
    expect(await ask(path)).toEqual({ kind: 'answer', text: 'ok 42\n' });
  });

  test('a peer that hangs up before a whole line has failed', async () => {
    const path = await serve((socket) => socket.end('ok'));
    expect(await ask(path)).toEqual({ kind: 'failed' });
  });

  test('a peer that never answers is no answer once the wait is over', async () => {
    const path = await serve(() => {});
    expect(await ask(path, { waitMs: 100 })).toEqual({ kind: 'no answer' });
  });

  test('a peer that talks past the bound without a newline ends the read', async () => {
    const path = await serve((socket) => socket.write('x'.repeat(4096)));
    const answer = await ask(path);
    expect(answer.kind).toBe('answer');
    expect(answer.kind === 'answer' && answer.text.includes('\n')).toBe(false);
  });

  test('nothing at the path, a directory, a FIFO or a stale socket has failed at once', async () => {
    const dir = await tempDir();
    expect(await ask(join(dir, 'missing.sock'))).toEqual({ kind: 'failed' });
    await mkdir(join(dir, 'dir.sock'));
    expect(await ask(join(dir, 'dir.sock'))).toEqual({ kind: 'failed' });
    expect(spawnSync('mkfifo', [join(dir, 'fifo.sock')]).status).toBe(0);
    expect(await ask(join(dir, 'fifo.sock'))).toEqual({ kind: 'failed' });
    // A socket file whose listener is gone (a killed supervisor) refuses the connection.
    const stale = join(dir, 'stale.sock');
    const server = createServer();
    await new Promise<void>((done) => server.listen(stale, done));
    const listener = (server as unknown as { _handle: { close(): void } })._handle;
    listener.close();
    expect(await ask(stale)).toEqual({ kind: 'failed' });
  });

  test('an abort ends the wait, before or after the connection', async () => {
    const path = await serve(() => {});
    const early = new AbortController();
    early.abort();
    expect(await ask(path, { signal: early.signal })).toEqual({ kind: 'aborted' });
    const late = new AbortController();
    const asked = ask(path, { signal: late.signal });
    setTimeout(() => late.abort(), 50);
    expect(await asked).toEqual({ kind: 'aborted' });
  });

  test('many questions in a row leave no handle open', async () => {
    const path = await serve((socket) => socket.end('ok 1\n'));
    const pipes = () =>
      (process as unknown as { _getActiveHandles(): object[] })
        ._getActiveHandles()
        .filter((handle) => handle.constructor?.name === 'Pipe').length;
    await ask(path);
    // A closed handle leaves the list on the loop's next turn.
    await new Promise((done) => setTimeout(done, 20));
    const before = pipes();
    for (let i = 0; i < 50; i++) expect((await ask(path)).kind).toBe('answer');
    await new Promise((done) => setTimeout(done, 20));
    expect(pipes()).toBe(before);
  });
});
