// Quota snapshots pushed to a real SSH peer (its own user, home and sshd): `host quota-store` over
// OpenSSH and over the pooled RPC channel writes the peer's quota.json, newer wins there too, and
// a peer that cannot be reached is retried only after the backoff. A real `serve` that collects
// pushes to its enabled peers over its pooled connection, and never to a disabled one.

import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuotaSnapshot } from '../../service/core/quota/quota-rows.js';
import { QuotaPusher } from '../../service/quota/push.js';
import { OpenSshTransport } from '../../service/transport/openssh.js';
import { SshPool } from '../../service/transport/pool.js';
import type { PeerTarget, Transport } from '../../service/transport/types.js';
import { exited, sandbox, startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { KEY, useFakeCliproxy } from '../integration/quota/quota-fixtures.js';
import { acceptedConnections } from './peers/fleet.js';
import { type Peers, peerSupport, startPeers } from './peers/index.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`quota-store-peers: skipped: ${unsupported}`);

const snapshot = (fetched_ms: number, account = 'me@example.com'): QuotaSnapshot => ({
  version: 1,
  fetched_ms,
  source: 'mac-mini',
  pools: [
    {
      pool: 'claude',
      account,
      window: 'five_hour',
      used_pct: 42,
      resets_ms: fetched_ms + 3_600_000,
      error: null,
    },
    { pool: 'codex', account, window: 'primary', used_pct: 0, resets_ms: null, error: 'usage: HTTP 401' },
  ],
});

describe.skipIf(unsupported)('quota-store on a real peer', () => {
  let peers: Peers;
  let openssh: OpenSshTransport;
  let pool: SshPool;
  const bench = useFakeCliproxy('dogsled-quota-serve-');
  const target = (): PeerTarget => ({ host: 'q1', remoteCommand: peers.remoteCommand });
  const storedOnPeer = async (): Promise<QuotaSnapshot> => {
    const home = peers.peer('q1').user.home;
    return JSON.parse(await peers.peer('q1').run(['cat', `${home}/.local/state/dogsled/quota.json`]));
  };

  beforeAll(async () => {
    peers = await startPeers([{ tag: 'q1' }]);
    openssh = new OpenSshTransport({ bin: peers.client.ssh });
    pool = new SshPool({ ssh: { bin: peers.client.ssh } });
  });

  afterAll(async () => {
    await pool?.close();
    await peers?.stop();
  });

  it.each(['OpenSSH', 'the pool'])(
    'a pushed snapshot is stored on the peer over %s; an older one never replaces it',
    async (name) => {
      const transport: Transport = name === 'OpenSSH' ? openssh : pool;
      const base = Date.now() + (name === 'OpenSSH' ? 0 : 1_000);
      const pusher = new QuotaPusher({ transport, now: () => base });
      expect(await pusher.push(snapshot(base), [target()])).toEqual([
        { host: 'q1', ok: true, stored: true, error: null, retry_at_ms: null },
      ]);
      expect(await storedOnPeer()).toEqual(snapshot(base));

      const stale = new QuotaPusher({ transport, now: () => base });
      expect(await stale.push(snapshot(base - 1, 'old@example.com'), [target()])).toEqual([
        { host: 'q1', ok: true, stored: false, error: null, retry_at_ms: null },
      ]);
      expect(await storedOnPeer()).toEqual(snapshot(base));
    },
  );

  it('the peer refuses a snapshot that is not valid, in one line, and keeps its own', async () => {
    const before = await storedOnPeer();
    const reply = await openssh.exec(target(), ['quota-store'], { input: '{"version":1,"pools":"x"}' });
    expect(reply).toMatchObject({ ok: false, exitCode: 2 });
    expect((reply as { error: string }).error).toMatch(/^host: quota-store: snapshot on stdin: /);
    expect(await storedOnPeer()).toEqual(before);
  });

  it('a peer that cannot be reached is retried only after the backoff', async () => {
    let clock = Date.now();
    const pusher = new QuotaPusher({
      transport: openssh,
      now: () => clock,
      random: () => 0.5,
      timeoutMs: 10_000,
    });
    const sshd = peers.peer('q1').sshd;
    await sshd.stop();
    try {
      const [failed] = await pusher.push(snapshot(clock + 5_000), [target()]);
      expect(failed).toMatchObject({ host: 'q1', ok: false, retry_at_ms: clock + 10_000 });
      expect(failed?.error).toMatch(/unreachable/);
      expect(await pusher.push(snapshot(clock + 5_000), [target()])).toEqual([]);
    } finally {
      await sshd.start();
    }
    clock += 10_000;
    const [retried] = await pusher.push(snapshot(clock - 5_000), [target()]);
    expect(retried).toMatchObject({ ok: true, stored: true });
    expect((await storedOnPeer()).fetched_ms).toBe(clock - 5_000);
  });

  it('a serve that collects pushes to its enabled peer over one pooled connection, never to a disabled one', async () => {
    const q1 = peers.peer('q1');
    await q1.run(['rm', '-f', `${q1.user.home}/.local/state/dogsled/quota.json`]);
    const box = await sandbox({
      DOGSLED_TEST: '1',
      DOGSLED_TEST_QUOTA_KEY_COMMAND: bench.keyCmd,
      NODE_EXTRA_CA_CERTS: bench.fake.caPath,
    });
    const bin = join(box.root, 'bin');
    await mkdir(bin);
    await symlink(peers.client.ssh, join(bin, 'ssh'));
    box.env.PATH = `${bin}:${box.env.PATH}`;
    // The disabled host is the same account under another target: a push to it would be a second
    // connection in the peer's sshd log.
    await writeFile(
      box.configPath,
      [
        `remote_command = ${JSON.stringify(peers.remoteCommand)}`,
        '[quota]',
        `management_url = "${bench.fake.origin}"`,
        '[[hosts]]',
        'id = "q1"',
        'target = "q1"',
        '[[hosts]]',
        'id = "off"',
        `target = "${q1.user.name}@q1"`,
        'enabled = false',
        '',
      ].join('\n'),
    );
    const before = await acceptedConnections(peers, 'q1');
    const serve = startCli(['serve', '--interval', '5'], box.env);
    try {
      // On a timeout, what serve said is the explanation.
      const withOutput = (error: unknown) => {
        throw new Error(`${String(error)}\n${serve.output()}`);
      };
      const local = await waitFor(
        "the caller's quota.json",
        async () => JSON.parse(await readFile(join(box.state, 'quota.json'), 'utf8')) as QuotaSnapshot,
        { timeoutMs: 30_000 },
      ).catch(withOutput);
      const stored = await waitFor(
        'the snapshot on the peer',
        async () => (await storedOnPeer()).fetched_ms === local.fetched_ms || undefined,
        { timeoutMs: 30_000 },
      )
        .catch(withOutput)
        .then(storedOnPeer);
      expect(stored).toEqual(local);
      expect(stored.pools.length).toBeGreaterThan(0);
      expect(JSON.stringify(stored)).not.toContain(KEY);
    } finally {
      serve.kill('SIGTERM');
      expect(await exited(serve)).toEqual({ code: 0, signal: null });
      await box.cleanup();
    }
    // Counted once the service ended: every push of its pass is done by then.
    expect((await acceptedConnections(peers, 'q1')) - before).toBe(1);
    // No push failed, and the peer list read without a warning.
    expect(serve.output()).not.toMatch(/quota|warning/);
  });
});
