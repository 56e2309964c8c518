// Backend selection when a socket exists: the socket wins when it answers `ping`, the ping's
// protocol number only warns, and a socket that answers nonsense is not used.

import { mkdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTerminal } from '../../../service/terminal/open.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
let server: Server | undefined;

beforeEach(async () => {
  dir = await tempDir('dogsled-open-');
});

afterEach(async () => {
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A server answering every request line with `answer(request)` (a raw line when a string). */
async function listen(path: string, answer: (request: { id: string; method: string }) => unknown) {
  const methods: string[] = [];
  server = createServer((socket) => {
    socket.setEncoding('utf8');
    socket.on('error', () => {}); // a client gone mid-request must not fail the run
    socket.once('data', (line: string) => {
      const request = JSON.parse(line.split('\n')[0]!);
      methods.push(request.method);
      const reply = answer(request);
      socket.end(typeof reply === 'string' ? reply : `${JSON.stringify(reply)}\n`);
    });
  });
  await new Promise<void>((resolve) => server!.listen(path, resolve));
  return methods;
}

const pong = (protocol: number) => (request: { id: string }) => ({
  id: request.id,
  result: { type: 'pong', version: '0.8.0', protocol },
});

const env = (extra: NodeJS.ProcessEnv) => ({ PATH: '/usr/bin:/bin', HOME: dir, ...extra });

describe('openTerminal with a socket', () => {
  it('uses HERDR_SOCKET_PATH when it answers ping, and knows it runs inside Herdr', async () => {
    const path = join(dir, 'h.sock');
    const methods = await listen(path, pong(20));
    const warnings: string[] = [];
    const port = await openTerminal({
      env: env({ HERDR_SOCKET_PATH: path, HERDR_ENV: '1' }),
      home: dir,
      warn: (line) => warnings.push(line),
    });
    expect(port.kind).toBe('herdr-socket');
    expect(port.why).toBe(`socket ${path} answered (herdr 0.8.0, protocol 20)`);
    expect(port.insideHerdr).toBe(true);
    expect(port.server).toMatchObject({ version: '0.8.0', protocol: 20 });
    expect(methods).toEqual(['ping']);
    expect(warnings).toEqual([]);
  });

  it('finds the default socket under XDG_CONFIG_HOME, outside any Herdr pane', async () => {
    const config = join(dir, 'config');
    await mkdir(join(config, 'herdr'), { recursive: true });
    await listen(join(config, 'herdr', 'herdr.sock'), pong(20));
    const port = await openTerminal({ env: env({ XDG_CONFIG_HOME: config }), home: dir });
    expect(port.kind).toBe('herdr-socket');
    expect(port.insideHerdr).toBe(false);
  });

  it('warns but carries on when the server speaks another protocol number', async () => {
    const path = join(dir, 'h.sock');
    await listen(path, pong(21));
    const warnings: string[] = [];
    const port = await openTerminal({
      env: env({ HERDR_SOCKET_PATH: path }),
      home: dir,
      warn: (line) => warnings.push(line),
    });
    expect(port.kind).toBe('herdr-socket');
    expect(warnings).toEqual([
      'dogsled: warning: herdr 0.8.0 speaks socket protocol 21; dogsled expects 20 and continues',
    ]);
  });

  it('does not use a socket that answers something other than Herdr envelopes', async () => {
    const path = join(dir, 'h.sock');
    await listen(path, () => 'HTTP/1.1 400 Bad Request\r\n\r\n');
    const port = await openTerminal({ env: env({ HERDR_SOCKET_PATH: path }), home: dir });
    expect(port.kind).toBe('headless');
    expect(port.why).toBe(`socket ${path} did not speak Herdr's protocol and no herdr binary is on PATH`);
  });
});
