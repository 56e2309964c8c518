// A peer that cannot be read, each way it happens, over OpenSSH and over the pool: one category,
// never SSH's own words; the raw text kept (escapes stripped) for a debug log only.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DogsledError } from '../../service/core/common/errors.js';
import { OpenSshTransport } from '../../service/transport/openssh.js';
import { SshPool } from '../../service/transport/pool.js';
import { type PeerTarget, type Transport, UnreachableError } from '../../service/transport/types.js';
import { waitFor } from '../helpers/wait.js';
import { keyOf } from './peers/client.js';
import { type Peers, peerSupport, startPeers } from './peers/index.js';
import { run } from './peers/procs.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`transport-failures: skipped: ${unsupported}`);

/** Each call's deadline: long enough for a loaded machine to connect, short for a test that waits it out. */
const DEADLINE_MS = 4_000;

async function failure(
  transport: Transport,
  target: PeerTarget,
  timeoutMs = 20_000,
): Promise<UnreachableError> {
  const error = await transport.exec(target, ['snapshot'], { timeoutMs }).then(
    (reply) => new Error(`expected a failure, got ${JSON.stringify(reply)}`),
    (e: unknown) => e,
  );
  if (!(error instanceof UnreachableError)) throw error;
  return error;
}

describe.skipIf(unsupported)('unreachable peers', () => {
  let peers: Peers;
  const debug: string[] = [];
  const transports: Array<[string, () => Transport]> = [
    ['OpenSSH', () => new OpenSshTransport({ bin: peers.client.ssh, debug: (line) => debug.push(line) })],
    // A fresh pool each time: no connection and no backoff carried over from another case.
    ['the pool', () => new SshPool({ ssh: { bin: peers.client.ssh }, debug: (line) => debug.push(line) })],
  ];
  const target = (host = 'lo', remoteCommand = peers.remoteCommand): PeerTarget => ({ host, remoteCommand });

  beforeAll(async () => {
    peers = await startPeers([{ tag: 'lo' }]);
  });

  afterAll(async () => {
    await peers?.stop();
  });

  describe.each(transports)('over %s', (_name, make) => {
    it('reads the peer when nothing is wrong', async () => {
      const transport = make();
      expect(await transport.exec(target(), ['snapshot'])).toMatchObject({ ok: true });
      await transport.close();
    });

    it('says connection refused when the sshd is stopped', async () => {
      await peers.peer('lo').sshd.stop();
      try {
        const error = await failure(make(), target());
        expect(error.message).toBe('lo: unreachable: connection refused');
        expect(error.category).toBe('connection refused');
      } finally {
        await peers.peer('lo').sshd.start();
      }
    });

    it('says timeout when the sshd is frozen, once its deadline has passed', async () => {
      await peers.peer('lo').sshd.freeze();
      try {
        const started = performance.now();
        const error = await failure(make(), target(), DEADLINE_MS);
        expect(error.category).toBe('timeout');
        expect(performance.now() - started).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
      } finally {
        await peers.peer('lo').sshd.thaw();
      }
    });

    it('refuses a host key other than the one on file, and one with no key on file, leaving the file as it was', async () => {
      const other = keyOf(await readFile(`${peers.client.identity}.pub`, 'utf8'));
      try {
        await peers.writeKnownHosts({ lo: other });
        expect((await failure(make(), target())).category).toBe('host key');
        await peers.writeKnownHosts({ lo: null });
        expect((await failure(make(), target())).category).toBe('host key');
        expect(await readFile(peers.client.knownHosts, 'utf8')).toBe('');
      } finally {
        await peers.writeKnownHosts();
      }
    });

    it('says auth for a user the peer does not know', async () => {
      const error = await failure(make(), target('nobody-at-all@lo'));
      expect(error.message).toBe('nobody-at-all@lo: unreachable: auth');
    });

    it('says remote command failed when remote_command cannot run, exits without output or prints no frames', async () => {
      const broken = [
        ['/nonexistent/dogsled'],
        ['sh', '-c', 'printf "\\033]0;owned\\007\\033[2Jmise ERROR: no such tool\\n" >&2; exit 3', 'sh'],
        ['echo', 'Welcome to the peer'],
      ];
      for (const remoteCommand of broken) {
        const error = await failure(make(), target('lo', remoteCommand));
        expect(error.message).toBe('lo: unreachable: remote command failed');
        expect(error.detail).not.toMatch(/[\u001b\u0007]/);
      }
      expect(debug.some((line) => line.includes('mise ERROR: no such tool'))).toBe(true);
      expect(debug.join('\n')).not.toMatch(/[\u001b\u0007]/);
    });
  });

  describe('the pool', () => {
    it('backs off after a failed connection and fails at once until the retry time or retry()', async () => {
      let now = 1_000_000;
      const pool = new SshPool({ ssh: { bin: peers.client.ssh }, now: () => now, random: () => 0.5 });
      await peers.peer('lo').sshd.stop();
      try {
        expect((await failure(pool, target())).retryAtMs).toBeNull();
        const fast = await failure(pool, target());
        expect(fast).toMatchObject({ category: 'connection refused', retryAtMs: 1_010_000 });
        now = 1_010_000;
        expect((await failure(pool, target())).category).toBe('connection refused');
        // The second failure in a row waits twice as long: 20 s.
        expect(pool.state(target())).toMatchObject({ failures: 2, retryAtMs: 1_030_000 });
      } finally {
        await peers.peer('lo').sshd.start();
      }
      expect((await failure(pool, target())).retryAtMs).toBe(1_030_000);
      pool.retry('lo');
      expect(await pool.exec(target(), ['snapshot'])).toMatchObject({ ok: true });
      expect(pool.state(target())).toMatchObject({ connected: true, failures: 0, retryAtMs: null });
      await pool.close();
    });

    it('drops a connection whose peer froze under a request, and backs off', async () => {
      const pool = new SshPool({ ssh: { bin: peers.client.ssh } });
      expect(await pool.exec(target(), ['snapshot'])).toMatchObject({ ok: true });
      await peers.peer('lo').sshd.freeze();
      try {
        expect((await failure(pool, target(), DEADLINE_MS)).category).toBe('timeout');
        expect(pool.state(target())).toMatchObject({ connected: false, failures: 1 });
        expect((await failure(pool, target())).retryAtMs).not.toBeNull();
      } finally {
        await peers.peer('lo').sshd.thaw();
      }
      pool.retry('lo');
      expect(await pool.exec(target(), ['snapshot'])).toMatchObject({ ok: true });
      await pool.close();
    });

    it('keeps the connection of a slow verb on a live peer: heartbeats are not silence', async () => {
      const accepted = async () =>
        ((await peers.peer('lo').sshd.log()).match(/Accepted publickey/g) ?? []).length;
      const pool = new SshPool({ ssh: { bin: peers.client.ssh } });
      const slow = target('lo', [
        'env',
        'DOGSLED_TEST=1',
        'DOGSLED_TEST_ECHO_DELAY_MS=6000',
        ...peers.remoteCommand,
      ]);
      expect(await pool.exec(slow, ['snapshot'])).toMatchObject({ ok: true });
      const error = await pool.exec(slow, ['echo', 'slow'], { timeoutMs: 3_000 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ category: 'timeout' });
      expect(pool.state(slow)).toMatchObject({ connected: true, failures: 0, retryAtMs: null });
      const before = await accepted();
      expect(await pool.exec(slow, ['snapshot'])).toMatchObject({ ok: true });
      expect(await accepted()).toBe(before);
      await pool.close();
    });

    it("ends a call and the connection being made at its owner's stop: no backoff, close() waits for nothing", async () => {
      const stop = new AbortController();
      const pool = new SshPool({ ssh: { bin: peers.client.ssh }, signal: stop.signal });
      const sshd = peers.peer('lo').sshd;
      await sshd.freeze();
      try {
        // A deadline no test waits out: only the stop can end this call, mid-handshake.
        const call = pool.exec(target(), ['snapshot'], { timeoutMs: 600_000 }).catch((e: unknown) => e);
        const connected = async () =>
          (await run(['ss', '-Htn', 'state', 'established', `( dport = :${sshd.port} )`])).trim() !== '';
        await waitFor('the TCP connection', async () => (await connected()) || undefined, {
          timeoutMs: 15_000,
        });
        stop.abort();
        const error = await call;
        expect(error).toBeInstanceOf(DogsledError);
        expect((error as Error).message).toBe('transport: the pool is closed');
        // Cut short by this host, not failed by the peer.
        expect(pool.state(target())).toMatchObject({ connected: false, failures: 0, retryAtMs: null });
        await pool.close();
        expect(await connected()).toBe(false);
      } finally {
        await sshd.thaw();
      }
    });

    it('goes through OpenSSH for a peer reached by ProxyJump, which ssh2 cannot follow', async () => {
      const pool = new SshPool({ ssh: { bin: peers.client.ssh, extraArgs: ['-o', 'ProxyJump=lo'] } });
      const reply = await pool.exec(target(), ['echo', 'jumped']);
      expect(reply).toMatchObject({ ok: true, value: { args: ['jumped'] } });
      expect(pool.state(target()).connected).toBe(false);
      await pool.close();
    });
  });

  it('leaves no peer process behind a closed pool', async () => {
    const pool = new SshPool({ ssh: { bin: peers.client.ssh } });
    await pool.exec(target(), ['snapshot']);
    await pool.close();
    const user = peers.peer('lo').user.name;
    await waitFor('no peer process left', async () => {
      const left = await run(['pgrep', '-a', '-u', user, '-f', 'host rpc']).catch(() => '');
      if (left === '') return true;
      // Thrown, so a timeout names what is still running there.
      throw new Error(`still running as ${user}: ${left.trim().replaceAll('\n', '; ')}`);
    });
  });
});
