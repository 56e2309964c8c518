// A real nats-server (Debian's 2.9, /usr/sbin/nats-server) for the fleet bus tests: loopback only,
// a free port, JetStream in a temporary directory, and an optional config file for what flags do
// not reach (authorization, max_payload). Stopped and started again on the same port and store, so
// a restart keeps the buckets as a real server would.

import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { exited } from './cli.js';
import { tempDir } from './tree.js';

export const NATS_SERVER = '/usr/sbin/nats-server';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export class NatsServer {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly configFile: string,
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** `extra` is config text appended to the server's file (an `authorization` block, say). */
  static async start(extra = ''): Promise<NatsServer> {
    const dir = await tempDir('dogsled-nats-');
    const port = await freePort();
    const configFile = join(dir, 'server.conf');
    await writeFile(
      configFile,
      `host: 127.0.0.1\nport: ${port}\njetstream { store_dir: "${join(dir, 'js')}" }\n${extra}\n`,
    );
    const server = new NatsServer(port, configFile);
    await server.resume();
    return server;
  }

  /** Starts the server again (same port, same store); resolves once it accepts connections. */
  async resume(): Promise<void> {
    const child = spawn(NATS_SERVER, ['-c', this.configFile], { stdio: 'ignore' });
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await accepts(this.port))) {
      if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('nats-server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    child.kill('SIGTERM');
    await exited(child);
  }
}
