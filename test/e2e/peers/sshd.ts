// A private OpenSSH server: its own host key, config, pid file and log, run in the foreground (-D) as
// our child, on a loopback port or inside a network namespace with its own hostname. It can be
// stopped (connection refused), frozen with SIGSTOP (a hung host: connections open, nothing answers),
// thawed, and started again on the same address and key.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { waitFor } from '../../helpers/wait.js';
import { run, type Signalled, signalAgain, signalTree, stopTree } from './procs.js';

export interface SshdOptions {
  dir: string;
  address: string;
  /** 0 picks a free loopback port. */
  port: number;
  users: readonly string[];
  /** Network namespace and hostname of a separate host; absent: this host's loopback. */
  netns?: { name: string; hostname: string };
}

export interface Sshd {
  address: string;
  port: number;
  hostKeyPub: string;
  /** The listening server's pid (connections are its children). */
  pid: () => number;
  log: () => Promise<string>;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  freeze: () => Promise<void>;
  thaw: () => Promise<void>;
}

const SSHD = '/usr/sbin/sshd';
const READY_MS = 15_000;

export async function startSshd(options: SshdOptions): Promise<Sshd> {
  const hostKey = join(options.dir, 'host_ed25519');
  await run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'dogsled-test-host', '-f', hostKey]);
  const hostKeyPub = (await readFile(`${hostKey}.pub`, 'utf8')).trim();
  const port = options.port || (await freeLoopbackPort(options.address));
  const conf = join(options.dir, 'sshd_config');
  const log = join(options.dir, 'sshd.log');
  await writeFile(
    conf,
    [
      `Port ${port}`,
      `ListenAddress ${options.address}`,
      `HostKey ${hostKey}`,
      `PidFile ${join(options.dir, 'sshd.pid')}`,
      'AuthorizedKeysFile .ssh/authorized_keys',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin no',
      'MaxSessions 256',
      // Tests open many connections at once on a loaded machine; the default 10 would drop some.
      'MaxStartups 100:30:200',
      `AllowUsers ${options.users.join(' ')}`,
      'UseDNS no',
      'PrintMotd no',
      'PrintLastLog no',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  await run(['mkdir', '-p', '/run/sshd']);
  await run([SSHD, '-t', '-f', conf]);

  let child: ChildProcess | undefined;
  const sshdArgv = [SSHD, '-D', '-f', conf, '-E', log];
  const start = async (): Promise<void> => {
    const argv = options.netns
      ? [
          'ip',
          'netns',
          'exec',
          options.netns.name,
          'unshare',
          '--uts',
          '--mount',
          '--propagation',
          'private',
          'sh',
          '-c',
          // Values arrive as positional parameters: nothing is spliced into the script.
          'hostname "$1" && echo "$1" > "$2" && mount --bind "$2" /etc/hostname && shift 2 && exec "$@"',
          'sh',
          options.netns.hostname,
          join(options.dir, 'hostname'),
          ...sshdArgv,
        ]
      : sshdArgv;
    const [file, ...args] = argv as [string, ...string[]];
    child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    await waitForBanner(options.address, port, child, () => stderr);
  };
  await start();
  /** What freeze stopped, to thaw even if it has left this sshd's tree since. */
  const frozen: Signalled[] = [];
  const pid = (): number => {
    if (child?.pid === undefined) throw new Error('sshd is not running');
    return child.pid;
  };
  return {
    address: options.address,
    port,
    hostKeyPub,
    pid,
    log: () => readFile(log, 'utf8').catch(() => ''),
    stop: async () => {
      await signalAgain(frozen.splice(0), 'SIGCONT');
      if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child?.once('exit', resolve));
        await stopTree(child.pid);
        await exited;
      }
    },
    start,
    freeze: async () => {
      frozen.push(...(await signalTree(pid(), 'SIGSTOP')));
    },
    // The tree as it is now and every process freeze stopped: a connection's command whose sshd
    // was exiting as the freeze walked the tree was stopped after its parent had gone, so it is
    // no longer below this sshd and would stay stopped for good (a closed pool's `host rpc`).
    thaw: async () => {
      await signalTree(pid(), 'SIGCONT');
      await signalAgain(frozen.splice(0), 'SIGCONT');
    },
  };
}

/** Resolves once the server sends its SSH banner; rejects if it exits or stays silent. */
async function waitForBanner(address: string, port: number, child: ChildProcess, stderr: () => string) {
  const seen = await waitFor(
    `sshd on ${address}:${port} to send its banner`,
    async () =>
      child.exitCode !== null || child.signalCode !== null ? 'exited' : await banner(address, port),
    { timeoutMs: READY_MS, intervalMs: 50 },
  ).catch(() => 'silent');
  if (seen === 'exited') {
    throw new Error(`sshd exited (${child.exitCode ?? child.signalCode}): ${stderr().trim()}`);
  }
  if (seen === 'silent') throw new Error(`sshd on ${address}:${port} sent no banner: ${stderr().trim()}`);
}

function banner(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('data', (d: Buffer) => done(d.toString('latin1').startsWith('SSH-')));
    socket.once('error', () => done(false));
  });
}

function freeLoopbackPort(address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, address, () => {
      const info = server.address();
      const port = typeof info === 'object' && info ? info.port : 0;
      server.close(() => resolve(port));
    });
  });
}
