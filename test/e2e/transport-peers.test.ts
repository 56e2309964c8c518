// Two separate hosts (network namespaces with their own address and hostname), each running
// `dogsled serve` as its own user: their snapshots read over OpenSSH and over the pooled RPC.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostViewSchema } from '../../service/hosts/view-schemas.js';
import { OpenSshTransport } from '../../service/transport/openssh.js';
import { SshPool } from '../../service/transport/pool.js';
import type { PeerTarget, Transport } from '../../service/transport/types.js';
import { type Peers, peerSupport, startPeers } from './peers/index.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`transport-peers: skipped: ${unsupported}`);

/** Words a shell would split, expand, glob or take for options, had they been spliced into a line. */
const HOSTILE = [
  '-n',
  '--help',
  "it's",
  'a "b" c',
  '$(id)',
  '`id`',
  '*',
  '~',
  'x\ny',
  ';rm -rf /',
  '\u001b[31m',
  '',
];

describe.skipIf(unsupported)('peers on separate hosts', () => {
  let peers: Peers;
  let openssh: OpenSshTransport;
  let pool: SshPool;
  const target = (host: string): PeerTarget => ({ host, remoteCommand: peers.remoteCommand });

  beforeAll(async () => {
    peers = await startPeers([
      { tag: 'h1', netns: true, hashed: true },
      { tag: 'h2', netns: true },
    ]);
    await Promise.all(peers.peers.map((peer) => peer.startServe()));
    openssh = new OpenSshTransport({ bin: peers.client.ssh });
    pool = new SshPool({ ssh: { bin: peers.client.ssh } });
  });

  afterAll(async () => {
    await pool?.close();
    await peers?.stop();
  });

  const transports = (): Array<[string, Transport]> => [
    ['OpenSSH', openssh],
    ['the pool', pool],
  ];

  it.each(['OpenSSH', 'the pool'])(
    'reads each host snapshot over %s: its own hostname, service up',
    async (name) => {
      const transport = transports().find(([n]) => n === name)?.[1] as Transport;
      for (const peer of peers.peers) {
        const reply = await transport.exec(target(peer.alias), ['snapshot']);
        expect(reply).toMatchObject({ ok: true, exitCode: 0 });
        const value = (reply as { value: { host: unknown; now_ms: number } }).value;
        const host = HostViewSchema.parse(value.host);
        expect(host.hostname).toBe(peer.hostname);
        expect(host).toMatchObject({ service: 'up', local: true, reachable: true });
        expect(host.probe?.cores).toBeGreaterThan(0);
        expect(value.now_ms).toBeGreaterThanOrEqual(host.sample_ms ?? Number.POSITIVE_INFINITY);
      }
    },
  );

  it.each(['OpenSSH', 'the pool'])('hands every argument and the input over %s unchanged', async (name) => {
    const transport = transports().find(([n]) => n === name)?.[1] as Transport;
    const input = 'line one\nline \u001b]0;two\u0007 $(three)\n';
    const reply = await transport.exec(target('h2'), ['echo', ...HOSTILE], { input });
    expect(reply).toMatchObject({ ok: true, value: { args: HOSTILE, input, hostname: 'peer-h2' } });
  });

  it('keeps one connection per peer for overlapping calls', async () => {
    const accepted = async () =>
      ((await peers.peer('h1').sshd.log()).match(/Accepted publickey/g) ?? []).length;
    await pool.exec(target('h1'), ['snapshot']);
    const before = await accepted();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => pool.exec(target('h1'), ['echo', String(i)])),
    );
    expect(replies.map((reply) => (reply as { value: { args: string[] } }).value.args[0])).toEqual(
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
    expect(await accepted()).toBe(before);
    expect(pool.state(target('h1'))).toMatchObject({ connected: true, failures: 0 });
  });

  it('answers a verb refusal as a reply from a reachable host, not as unreachable', async () => {
    for (const [, transport] of transports()) {
      expect(await transport.exec(target('h1'), ['snapshot', '--all'])).toMatchObject({
        ok: false,
        exitCode: 2,
        error: 'host snapshot: takes no arguments, got "--all"',
      });
    }
  });
});
