// The pool over a peer whose sshd restarts: the connection it kept dies with the server's session
// processes, and the next call connects again by itself (a closed connection is not a failure).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SshPool } from '../../service/transport/pool.js';
import type { PeerTarget } from '../../service/transport/types.js';
import { type Peers, peerSupport, startPeers } from './peers/index.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`transport-reconnect: skipped: ${unsupported}`);

describe.skipIf(unsupported)('the pool across a peer restart', () => {
  let peers: Peers;
  let pool: SshPool;
  const lines: string[] = [];
  let target: PeerTarget;

  beforeAll(async () => {
    peers = await startPeers([{ tag: 'h3', netns: true }]);
    pool = new SshPool({ ssh: { bin: peers.client.ssh }, debug: (line) => lines.push(line) });
    target = { host: 'h3', remoteCommand: peers.remoteCommand };
  });

  afterAll(async () => {
    await pool?.close();
    await peers?.stop();
  });

  it('reconnects on the next call after the sshd restarts, without a backoff', async () => {
    const accepted = async () =>
      ((await peers.peer('h3').sshd.log()).match(/Accepted publickey/g) ?? []).length;
    expect(await pool.exec(target, ['echo', 'before'])).toMatchObject({
      ok: true,
      value: { hostname: 'peer-h3' },
    });
    expect(await accepted()).toBe(1);
    const sshd = peers.peer('h3').sshd;
    await sshd.stop();
    await sshd.start();
    // The kept connection closed with the old server; the pool noticed and forgot it.
    expect(pool.state(target)).toMatchObject({ connected: false, failures: 0 });
    expect(lines.some((line) => line.startsWith('h3: rpc channel closed'))).toBe(true);
    expect(await pool.exec(target, ['echo', 'after'])).toMatchObject({
      ok: true,
      value: { args: ['after'] },
    });
    // sshd appends to one log across restarts: one login before, one after.
    expect(await accepted()).toBe(2);
    expect(pool.state(target)).toMatchObject({ connected: true, failures: 0, retryAtMs: null });
  });
});
