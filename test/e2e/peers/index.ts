// Real SSH peers for end-to-end tests (see README.md here): each peer is an account with its own home
// on a private sshd, either on this host's loopback or in a network namespace with its own address
// and hostname. The peers run this worktree's built bundle, copied where their users can read it,
// through a remote_command. One setup per test file; `stop()` removes everything it made.

import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { chmod, chown, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CLI } from '../../helpers/cli.js';
import { readableCopy, readableFakes } from '../../helpers/readable-copy.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { type Client, createClient, keyOf } from './client.js';
import { createNetns, type Netns } from './netns.js';
import { run, stopTree } from './procs.js';
import { type Sshd, startSshd } from './sshd.js';
import { createUser, deleteUser, type PeerUser, removeStaleUsers, userName } from './users.js';

export interface PeerSpec {
  /** Short name: the ssh alias and part of the user name. */
  tag: string;
  /** A separate host (network namespace, own address and hostname) instead of this loopback. */
  netns?: boolean;
  /** Its known_hosts line is hashed (ssh-keygen -H). */
  hashed?: boolean;
}

export interface Peer {
  alias: string;
  user: PeerUser;
  hostname: string;
  sshd: Sshd;
  netns: Netns | undefined;
  /** A copy of test/fakes the peer's user can read (the checkout may be closed to other users). */
  fakes: string;
  /** Runs argv as the peer's user, in its namespaces, with a clean environment. */
  run: (argv: readonly string[]) => Promise<string>;
  /** Starts argv as the peer's user, as run does (with `env` added); stdin is a pipe. */
  spawn: (argv: readonly string[], env?: Record<string, string>) => ReturnType<typeof spawn>;
  /** Starts `dogsled serve` as the peer's user (with `env` added) and waits for its first snapshot. */
  startServe: (options?: ServeOptions) => Promise<void>;
  /** Writes a file under the peer's home (parents made), owned by the peer's user. */
  writeHomeFile: (relative: string, text: string) => Promise<void>;
  stopServe: () => Promise<void>;
  /** The last few KB its serve wrote (stdout and stderr), for a failing wait's message. */
  serveOutput: () => string;
}

export interface ServeOptions {
  /** Extra variables for serve (DOGSLED_TEST, DOGSLED_TEST_PROBE_ROOT…). */
  env?: Record<string, string>;
  /** Seconds between measurements (default 5). */
  interval?: string;
}

export interface Peers {
  root: string;
  client: Client;
  /** remote_command for these peers: node and the copied bundle (a path with a space, `'` and `$`). */
  remoteCommand: string[];
  peers: Peer[];
  peer: (tag: string) => Peer;
  /** Rewrites the client's known_hosts: every peer's real key, or `override` per alias. */
  writeKnownHosts: (override?: Record<string, string | null>) => Promise<void>;
  stop: () => Promise<void>;
}

const TOOLS = ['/usr/sbin/sshd', '/usr/bin/ssh', '/usr/bin/ssh-keygen'];
const COMMANDS = ['ip', 'unshare', 'nsenter', 'setpriv', 'useradd', 'userdel'];

/** The built CLI the peers run: this worktree's dist/ (the benchmark passes its own path). */
const DIST = dirname(CLI);

/** Why real peers cannot run here, or undefined when they can. */
export function peerSupport(dist = DIST): string | undefined {
  if (process.platform !== 'linux') return 'real SSH peers need Linux';
  if (process.getuid?.() !== 0) return 'real SSH peers need root (useradd, sshd, network namespaces)';
  for (const tool of TOOLS)
    if (!existsSync(tool)) return `${tool} is missing (apt-get install openssh-server)`;
  const path = (process.env.PATH ?? '').split(':');
  for (const command of COMMANDS) {
    if (!path.some((dir) => existsSync(join(dir, command)))) return `${command} is not on PATH`;
  }
  if (!existsSync(join(dist, 'dogsled.cjs'))) return `${join(dist, 'dogsled.cjs')} is not built`;
  // Peer users run this node binary: every directory above it must let them through.
  for (let dir = process.execPath; dir !== '/'; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return `${dir} is not executable by other users`;
  }
  return undefined;
}

export async function startPeers(specs: readonly PeerSpec[], dist = DIST): Promise<Peers> {
  await removeStaleUsers();
  const root = await tempDir('dogsled-peers-');
  await chmod(root, 0o755);
  const made: Peer[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    // Copied, never the checkout itself: it may sit in a directory the peer users cannot enter.
    const bundle = await readableCopy(dist, join(root, "it's dist $HOME"));
    const fakes = await readableFakes(join(root, 'checkout'));
    const remoteCommand = [process.execPath, join(bundle, 'dogsled.cjs')];
    const client = await createClient(await dir(root, 'client', 0o700));
    for (const spec of specs)
      made.push(await startPeer(root, spec, client, { bundle: remoteCommand[1] as string, fakes }, cleanups));
    await client.writeConfig(
      made.map((peer) => ({
        alias: peer.alias,
        hostname: peer.sshd.address,
        port: peer.sshd.port,
        user: peer.user.name,
      })),
    );
    const writeKnownHosts = async (override: Record<string, string | null> = {}): Promise<void> => {
      const entries = made.flatMap((peer, i) => {
        const key = Object.hasOwn(override, peer.alias) ? override[peer.alias] : keyOf(peer.sshd.hostKeyPub);
        if (key === null || key === undefined) return [];
        return [
          { hostname: peer.sshd.address, port: peer.sshd.port, key, hashed: specs[i]?.hashed ?? false },
        ];
      });
      await client.writeKnownHosts(entries);
    };
    await writeKnownHosts();
    return {
      root,
      client,
      remoteCommand,
      peers: made,
      peer: (tag) => {
        const found = made.find((peer) => peer.alias === tag);
        if (!found) throw new Error(`no test peer ${tag}`);
        return found;
      },
      writeKnownHosts,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startPeer(
  root: string,
  spec: PeerSpec,
  client: Client,
  { bundle, fakes }: { bundle: string; fakes: string },
  cleanups: Array<() => Promise<void>>,
): Promise<Peer> {
  const name = userName(spec.tag);
  const home = join(root, 'homes', name);
  await mkdir(home, { recursive: true });
  cleanups.push(() => deleteUser(name));
  const user = await createUser(name, home, client.publicKey);
  const netns = spec.netns ? await createNetns() : undefined;
  if (netns) cleanups.push(netns.destroy);
  const hostname = netns ? `peer-${spec.tag}` : (await run(['hostname'])).trim();
  const sshd = await startSshd({
    dir: await dir(root, `sshd-${spec.tag}`, 0o700),
    address: netns?.address ?? '127.0.0.1',
    port: netns ? 22 : 0,
    users: [name],
    ...(netns ? { netns: { name: netns.name, hostname } } : {}),
  });
  cleanups.push(sshd.stop);
  const asUser = (argv: readonly string[], extra: Record<string, string> = {}): string[] => [
    ...(netns ? ['nsenter', '--target', String(sshd.pid()), '--net', '--uts', '--mount', '--'] : []),
    'setpriv',
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    '--init-groups',
    '--',
    'env',
    '-i',
    `HOME=${home}`,
    `USER=${name}`,
    'PATH=/usr/local/bin:/usr/bin:/bin',
    ...Object.entries(extra).map(([key, value]) => `${key}=${value}`),
    ...argv,
  ];
  let serve: ReturnType<typeof spawn> | undefined;
  let serveSaid = '';
  const stopServe = async (): Promise<void> => {
    if (serve?.pid !== undefined && serve.exitCode === null) await stopTree(serve.pid);
    serve = undefined;
  };
  cleanups.push(stopServe);
  return {
    alias: spec.tag,
    user,
    hostname,
    sshd,
    netns,
    fakes,
    run: (argv) => run(asUser(argv)),
    spawn: (argv, env = {}) => {
      const [file, ...args] = asUser(argv, env);
      return spawn(file as string, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    },
    writeHomeFile: async (relative, text) => {
      const path = join(home, relative);
      for (let dir = dirname(path); dir.startsWith(home) && dir !== home; dir = dirname(dir)) {
        await mkdir(dir, { recursive: true });
        await chown(dir, user.uid, user.gid);
      }
      await writeFile(path, text);
      await chown(path, user.uid, user.gid);
    },
    startServe: async (options = {}) => {
      const serveArgs = [process.execPath, bundle, 'serve', '--interval', options.interval ?? '5'];
      const [file, ...args] = asUser(serveArgs, options.env);
      serve = spawn(file as string, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      serveSaid = '';
      const said = (chunk: Buffer) => {
        serveSaid = (serveSaid + chunk.toString('utf8')).slice(-SERVE_OUTPUT_KEPT);
      };
      serve.stdout?.on('data', said);
      serve.stderr?.on('data', said);
      const snapshot = join(home, '.local', 'state', 'dogsled', 'host.json');
      const child = serve;
      const published = await waitFor(
        `serve on ${spec.tag} to publish`,
        async () => (child.exitCode !== null ? 'exited' : await stat(snapshot).then(() => 'published')),
        { timeoutMs: 20_000, intervalMs: 50 },
      ).catch(() => 'silent');
      if (published !== 'published') throw new Error(`serve on ${spec.tag} published nothing`);
    },
    stopServe,
    serveOutput: () => serveSaid,
  };
}

/** How much of a peer's serve output is kept: its last lines, where a failure's warning is. */
const SERVE_OUTPUT_KEPT = 8_192;

async function dir(root: string, name: string, mode: number): Promise<string> {
  const path = join(root, name);
  await mkdir(path, { recursive: true, mode });
  return path;
}
