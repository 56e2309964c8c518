// A fleet for end-to-end tests: real sshd peers (index.ts), each running `dogsled serve` on a fixture
// /proc of its own size (all idle, the counters advancing), so which host is freest is the test's
// choice and never the machine's CPU headroom; and a caller sandbox whose config lists the peers as
// [[hosts]] with the peers' remote_command, and whose PATH holds the test client's `ssh`. The fake
// harnesses are installed on every peer as a user installs them, under ~/.local/bin, and the
// caller's PATH names its own ~/.local/bin: a child on a peer runs with its caller's PATH, its home
// directories mapped to the peer's home, so that is where it finds its harness.

import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { advanceStat, writeProc } from '../../helpers/proc-fixture.js';
import { waitFor } from '../../helpers/wait.js';
import { type Peer, type PeerSpec, type Peers, startPeers } from './index.js';

export interface FleetPeer extends PeerSpec {
  cores: number;
  /**
   * Its service's `--interval` in seconds (default 1). A file whose cases never wait on this peer's
   * ticks (a job or agent there showing in its snapshot, its outbox, its lanes) gives it the
   * service's own default of 5: each tick costs its serve CPU for the whole file, and eligibility
   * still comes from the second tick, a second after the first, whatever the interval.
   */
  interval?: string;
}

export interface Fleet {
  peers: Peers;
  box: Sandbox;
  /** The caller's env: its sandbox, PATH with the test ssh, DOGSLED_TEST with a peer budget. */
  env: NodeJS.ProcessEnv;
  /** Writes the caller's config: policy lines, then every peer as [[hosts]] (targets overridable). */
  writeConfig: (targets?: Record<string, string>) => Promise<void>;
  stop: () => Promise<void>;
}

/** The caller's peer budget: generous, as a loaded 2-core machine starts ssh and node slowly. */
export const TEST_PEER_BUDGET_MS = 8_000;

export async function startFleet(specs: readonly FleetPeer[]): Promise<Fleet> {
  const peers = await startPeers(specs);
  const box = await sandbox();
  let ticking = true;
  const tickers: Promise<void>[] = [];
  try {
    for (const spec of specs) {
      const proc = join(peers.root, `proc-${spec.tag}`);
      let total = 10_000;
      await writeProc(proc, { cores: spec.cores, total, idle: total });
      await readableTree(proc);
      tickers.push(
        (async () => {
          while (ticking) {
            total += 100;
            await advanceStat(proc, { cores: spec.cores, total, idle: total }).catch(() => undefined);
            await chmod(join(proc, 'proc', 'stat'), 0o644).catch(() => undefined);
            await new Promise((r) => setTimeout(r, 100));
          }
        })(),
      );
      const peer = peers.peer(spec.tag);
      await installHarnesses(peer);
      // Memory and disk never refuse here: only the cores decide.
      await peer.writeHomeFile(
        '.config/dogsled/config.toml',
        'memory_reserve_bytes = 0\ndisk_free_min_percent = 0\n',
      );
      await peer.startServe({
        env: { DOGSLED_TEST: '1', DOGSLED_TEST_PROBE_ROOT: proc },
        interval: spec.interval ?? '1',
      });
    }
    const bin = join(box.root, 'bin');
    await mkdir(bin);
    await symlink(peers.client.ssh, join(bin, 'ssh'));
    const env: NodeJS.ProcessEnv = {
      ...box.env,
      PATH: `${join(box.home, '.local', 'bin')}:${bin}:${box.env.PATH}`,
      DOGSLED_TEST: '1',
      DOGSLED_TEST_PEER_BUDGET_MS: String(TEST_PEER_BUDGET_MS),
    };
    const writeConfig = async (targets: Record<string, string> = {}) => {
      const hosts = specs.map((spec) =>
        [`[[hosts]]`, `id = "${spec.tag}"`, `target = ${JSON.stringify(targets[spec.tag] ?? spec.tag)}`].join(
          '\n',
        ),
      );
      await writeFile(
        box.configPath,
        [`remote_command = ${JSON.stringify(peers.remoteCommand)}`, '', ...hosts, ''].join('\n'),
      );
    };
    await writeConfig();
    return {
      peers,
      box,
      env,
      writeConfig,
      stop: async () => {
        ticking = false;
        await Promise.all(tickers);
        await peers.stop();
        await box.cleanup();
      },
    };
  } catch (error) {
    ticking = false;
    await peers.stop();
    await box.cleanup();
    throw error;
  }
}

/** The fake `claude`, `codex` and `pi` in the peer's ~/.local/bin, run by this node. */
export async function installHarnesses(peer: Peer, dir = '.local/bin'): Promise<void> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  for (const kind of ['claude', 'codex', 'pi']) {
    const fake = join(peer.fakes, 'agents', 'bin', kind);
    await peer.writeHomeFile(
      `${dir}/${kind}`,
      `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(fake)} "$@"\n`,
    );
    await peer.run(['chmod', '755', join(peer.user.home, dir, kind)]);
  }
}

async function readableTree(dir: string): Promise<void> {
  const { readdir, stat } = await import('node:fs/promises');
  await chmod(dir, 0o755);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) await readableTree(path);
    else await chmod(path, 0o644);
  }
}

/** Waits until every peer is eligible (its second tick brings a CPU sample), reading it fresh each time. */
export async function untilPeersEligible(fleet: Fleet): Promise<void> {
  await waitFor(
    'every peer eligible',
    async () => {
      await rm(join(fleet.box.state, 'peers'), { recursive: true, force: true });
      const result = await runCli(['status', '--json'], fleet.env, { timeoutMs: 30_000 });
      const report = JSON.parse(result.stdout) as { hosts: Array<{ headroom: { eligible: boolean } }> };
      return report.hosts.slice(1).every((h) => h.headroom.eligible) || undefined;
    },
    { timeoutMs: 30_000 },
  );
}

/** How many connections a peer's sshd accepted so far (one per OpenSSH read). */
export async function acceptedConnections(peers: Peers, tag: string): Promise<number> {
  return ((await peers.peer(tag).sshd.log()).match(/Accepted publickey/g) ?? []).length;
}
