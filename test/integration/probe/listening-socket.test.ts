// A socket made listening here and handed to a child as its descriptor 3 (listening-socket.ts,
// launchWarm): connections made before the child accepts wait for it and are answered by it, never
// by this process; its mode is private; a directory in its place is refused untouched, a stale
// socket or a file replaced; it is removed only while it is the one made.
import { spawn } from 'node:child_process';
import { lstat, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WARM_SOCKET_FD } from '../../../service/core/jobs/job-env.js';
import { launchWarm } from '../../../service/process/launch-detached.js';
import { listeningSocket, removeSocket } from '../../../service/process/listening-socket.js';
import { exited } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tree.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** A child that waits for its stdin to close, then answers each connection's line on descriptor 3. */
const CHILD = `
const net = require('node:net');
process.stdin.resume();
process.stdin.once('end', () => {
  net.createServer((c) => {
    c.setEncoding('utf8');
    c.once('data', (line) => c.end('heard ' + line.trim() + ' in ' + process.pid + '\\n'));
  }).listen({ fd: ${WARM_SOCKET_FD} }, () => process.stdout.write('listening\\n'));
});
`;

/** One line to `path`; what came back before the end, or the error's code. */
function ask(path: string, line: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let heard = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(line));
    socket.on('data', (d: string) => {
      heard += d;
    });
    socket.on('end', () => resolve(heard));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('listeningSocket handed to a warm child', () => {
  it('queues connections made before the child accepts, and the child answers them, never this process', async () => {
    const dir = await tempDir();
    const path = join(dir, 'supervisor.sock');
    const socket = listeningSocket(path, 0o600);
    expect(socket).toBeDefined();
    if (socket === undefined) return;
    const made = await lstat(path);
    expect(made.isSocket()).toBe(true);
    expect(made.mode & 0o777).toBe(0o600);
    expect(made.ino).toBe(socket.ino);
    const warm = await launchWarm([process.execPath, '-e', CHILD], { cwd: dir, env, socket });
    // Two asks while the child has not listened yet (it waits for its stdin to close).
    const first = ask(path, 'one\n');
    const second = ask(path, 'two\n');
    warm.cancel();
    expect(await warm.taken).toBe('taken');
    expect(await first).toBe(`heard one in ${warm.pid}\n`);
    expect(await second).toBe(`heard two in ${warm.pid}\n`);
    process.kill(warm.pid, 'SIGKILL');
    await warm.exited;
    // Its last holder gone, the socket refuses (the launch closed this process's copy); it is
    // removed only while it is the one made.
    expect(await ask(path, 'three\n')).toBe('ECONNREFUSED');
    removeSocket(path, socket.ino + 1);
    expect((await lstat(path)).isSocket()).toBe(true);
    removeSocket(path, socket.ino);
    await expect(lstat(path)).rejects.toThrow(/ENOENT/);
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a directory in its place, leaving it; replaces a stale socket, a file and a FIFO', async () => {
    const dir = await tempDir();
    const path = join(dir, 'supervisor.sock');
    await mkdir(path);
    expect(listeningSocket(path, 0o600)).toBeUndefined();
    expect((await stat(path)).isDirectory()).toBe(true);
    // Nothing of its own left behind under its private name.
    await expect(lstat(`${path}.${process.pid}`)).rejects.toThrow(/ENOENT/);
    await rm(path, { recursive: true });

    const stale = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`,
    ]);
    await new Promise((resolve) => stale.stdout.once('data', resolve));
    stale.kill('SIGKILL');
    await exited(stale);
    for (const make of [
      async () => undefined,
      () => writeFile(path, 'not a socket'),
      async () => void (await exited(spawn('mkfifo', [path]))),
    ]) {
      await make();
      expect(await lstat(path)).toBeDefined();
      const socket = listeningSocket(path, 0o600);
      expect(socket).toBeDefined();
      const made = await lstat(path);
      expect(made.isSocket()).toBe(true);
      expect(made.ino).toBe(socket?.ino);
      socket?.close();
      await rm(path);
    }
    await rm(dir, { recursive: true, force: true });
  });
});
