// A command's peer reads through this host's service (peer-read.sock, the service's pooled ssh2
// connections) over real sshd peers: the same report and the same cache as the command's own reads,
// no new ssh connection per read, the same words for a peer that is down; the command's budget still
// bounds it when the service is frozen (it reads the peers itself), before or in the middle of a
// read, dies or is replaced, or a peer is frozen (unreachable: timeout); the socket is this user's
// alone and reads only the peers the service's config lists.

import { readFile, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../service/hosts/view-schemas.js';
import { exited, runCli, runNode, startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { acceptedConnections, type Fleet, startFleet, untilPeersEligible } from './peers/fleet.js';
import { peerSupport } from './peers/index.js';
import { processTree } from './peers/procs.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`peers-service-reads: skipped: ${unsupported}`);

/** The budget the adversarial cases give a command: a frozen service or peer must not hold it longer. */
const BUDGET_MS = 3_000;
/** A Node start and a status on a loaded 2-core box, on top of the budget. */
const START_SLACK_MS = 5_000;

describe.skipIf(unsupported)("a command's peer reads through this host's service", () => {
  let fleet: Fleet;
  let serve: ReturnType<typeof startCli> | undefined;
  const sock = () => join(fleet.box.state, 'peer-read.sock');

  async function status(extra: NodeJS.ProcessEnv = {}) {
    const started = performance.now();
    const result = await runCli(['status', '--json'], { ...fleet.env, ...extra }, { timeoutMs: 60_000 });
    const ms = performance.now() - started;
    expect(result.code, result.stderr).toBe(0);
    return { report: StatusReportSchema.parse(JSON.parse(result.stdout)), ms, stderr: result.stderr };
  }
  const host = (report: Awaited<ReturnType<typeof status>>['report'], id: string) => {
    const found = report.hosts.find((h) => h.id === id);
    if (!found) throw new Error(`no host ${id} in ${report.hosts.map((h) => h.id).join(', ')}`);
    return found;
  };
  /** What a read decides, without the times that differ from one read to the next. */
  const decided = (report: Awaited<ReturnType<typeof status>>['report']) =>
    report.hosts
      .filter((h) => !h.local)
      .map(({ id, label, hostname, reachable, unreachable, service, probe, headroom, retry_ms, errors }) => ({
        id,
        label,
        hostname,
        reachable,
        unreachable,
        service,
        cores: probe?.cores,
        eligible: headroom.eligible,
        free: headroom.free_cores,
        backoff: retry_ms !== null,
        errors,
      }));
  const entryPath = (id: string) => join(fleet.box.state, 'peers', `${id}.json`);
  const coldCache = () => rm(join(fleet.box.state, 'peers'), { recursive: true, force: true });
  const connections = () => Promise.all(['one', 'two'].map((tag) => acceptedConnections(fleet.peers, tag)));

  const startServe = async () => {
    serve = startCli(['serve', '--interval', '1'], fleet.env);
    const started = serve;
    // Listening, not merely there: a service killed before leaves its socket behind.
    await waitFor('peer-read.sock', async () => ((await listening(sock())) ? true : undefined), {
      timeoutMs: 30_000,
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${started.output()}`);
    });
  };
  const stopServe = async () => {
    if (!serve) return;
    const running = serve;
    serve = undefined;
    running.kill('SIGCONT');
    running.kill('SIGTERM');
    expect(await exited(running), running.output()).toEqual({ code: 0, signal: null });
  };

  beforeAll(async () => {
    // What is compared is what the peers' snapshots say, never a tick of theirs being waited on.
    fleet = await startFleet([
      { tag: 'one', cores: 4, interval: '5' },
      { tag: 'two', cores: 8, interval: '5' },
    ]);
    await untilPeersEligible(fleet);
  });

  afterAll(async () => {
    await stopServe().catch(() => undefined);
    await fleet?.stop();
  });

  it('shows what its own reads show, writes the same cache, and opens no ssh connection per read', async () => {
    await coldCache();
    const own = await status();
    const ownEntry = JSON.parse(await readFile(entryPath('one'), 'utf8'));
    expect(decided(own.report).every((h) => h.reachable)).toBe(true);
    await startServe();
    try {
      // The first read opens the service's pooled connection to each peer.
      await coldCache();
      await status();
      const before = await connections();
      for (let i = 0; i < 3; i++) {
        await coldCache();
        const pooled = await status();
        expect(decided(pooled.report)).toEqual(decided(own.report));
        expect(pooled.stderr).toBe('');
      }
      // Every one of those reads travelled on the connections already open.
      expect(await connections()).toEqual(before);
      const entry = JSON.parse(await readFile(entryPath('one'), 'utf8'));
      expect(Object.keys(entry).sort()).toEqual(Object.keys(ownEntry).sort());
      expect(entry).toMatchObject({ id: 'one', target: 'one', unreachable: null, failures: 0 });
      expect(entry.reply.host.probe.cores).toBe(4);
      // `ps` reads its peers through the same function.
      await coldCache();
      const ps = await runCli(['ps', '--json'], fleet.env, { timeoutMs: 60_000 });
      expect(ps.code, ps.stderr).toBe(0);
      expect(await connections()).toEqual(before);
      // And `place`.
      await coldCache();
      const placed = await runCli(['place', '--json'], fleet.env, { timeoutMs: 60_000 });
      expect(placed.code, placed.stderr).toBe(0);
      expect(JSON.parse(placed.stdout)).toMatchObject({ host: 'two' });
      // Its reads too; the one connection it opens is its reservation on the peer it chose.
      const [one, two] = await connections();
      expect(one).toBe(before[0]);
      expect(two).toBeLessThanOrEqual((before[1] ?? 0) + 1);
    } finally {
      await stopServe();
    }
  });

  it('says connection refused for a stopped sshd, as its own read does, and reads it again once it is back', async () => {
    const peer = fleet.peers.peer('two');
    await startServe();
    try {
      await coldCache();
      await status();
      await peer.sshd.stop();
      try {
        await coldCache();
        const { report } = await status();
        expect(host(report, 'two')).toMatchObject({
          reachable: false,
          unreachable: 'connection refused',
          service: 'unknown',
        });
        expect(host(report, 'one')).toMatchObject({ reachable: true });
      } finally {
        await peer.sshd.start();
      }
      await coldCache();
      expect(host((await status()).report, 'two')).toMatchObject({ reachable: true, unreachable: null });
    } finally {
      await stopServe();
    }
  });

  it('reads its peers itself, within its budget, while the service is frozen', async () => {
    await startServe();
    const frozen = serve;
    try {
      await coldCache();
      await status();
      // Frozen from outside, wherever it is: with no work it reads no peer, so it holds no lock a
      // status waits for (a status reads this host's files without locks).
      frozen?.kill('SIGSTOP');
      await coldCache();
      const { report, ms } = await status({ DOGSLED_TEST_PEER_BUDGET_MS: String(BUDGET_MS) });
      // A command that waited on the frozen service would show both peers as timeouts, or hang.
      expect(decided(report).map((h) => [h.id, h.reachable, h.unreachable])).toEqual([
        ['one', true, null],
        ['two', true, null],
      ]);
      expect(ms).toBeLessThan(BUDGET_MS + START_SLACK_MS);
      frozen?.kill('SIGCONT');
      // Thawed, it answers again: the next read travels on its pool, no new connection.
      await coldCache();
      await status();
      const before = await connections();
      await coldCache();
      expect(decided((await status()).report).every((h) => h.reachable)).toBe(true);
      expect(await connections()).toEqual(before);
    } finally {
      frozen?.kill('SIGCONT');
      await stopServe();
    }
  });

  it('reads its peers itself, within its budget, when the service freezes or dies in the middle of a read', async () => {
    const peer = fleet.peers.peer('one');
    /** The pooled channel's `dogsled host rpc` on peer one: frozen, it holds the service's reads there. */
    const rpcs = async () => {
      const found: number[] = [];
      for (const pid of await processTree(peer.sshd.pid())) {
        const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
        const at = argv.indexOf('host');
        if (at >= 0 && argv[at + 1] === 'rpc') found.push(pid);
      }
      return found;
    };
    for (const end of ['SIGSTOP', 'SIGKILL'] as const) {
      await startServe();
      const service = serve as NonNullable<typeof serve>;
      try {
        await coldCache();
        await status();
        const held = await rpcs();
        expect(held.length, 'the service holds a channel to peer one').toBeGreaterThan(0);
        for (const pid of held) process.kill(pid, 'SIGSTOP');
        try {
          await coldCache();
          const reading = status({ DOGSLED_TEST_PEER_BUDGET_MS: String(BUDGET_MS) });
          // The command's reads are under way in the service once it accepted them (the read of
          // peer one waits there on the frozen channel); then the service stops answering.
          await waitFor(
            'a read accepted by the service',
            async () => ((await accepted(service.pid)) > 0 ? true : undefined),
            {
              timeoutMs: 30_000,
              intervalMs: 10,
            },
          );
          await new Promise((resolve) => setTimeout(resolve, 200));
          service.kill(end);
          const { report, ms } = await reading;
          // Never a timeout blamed on a peer that a fresh connection reaches.
          expect(decided(report).map((h) => [h.id, h.reachable, h.unreachable])).toEqual([
            ['one', true, null],
            ['two', true, null],
          ]);
          expect(ms).toBeLessThan(BUDGET_MS + START_SLACK_MS);
        } finally {
          for (const pid of held) {
            try {
              process.kill(pid, 'SIGCONT');
            } catch {
              // Gone with its connection.
            }
          }
        }
      } finally {
        if (end === 'SIGKILL') {
          serve = undefined;
          await exited(service);
        } else await stopServe();
      }
    }
  });

  it('says timeout for a frozen peer within its budget, the other peer unharmed', async () => {
    const peer = fleet.peers.peer('one');
    await startServe();
    try {
      await coldCache();
      await status();
      await peer.sshd.freeze();
      try {
        await coldCache();
        const { report, ms } = await status({ DOGSLED_TEST_PEER_BUDGET_MS: String(BUDGET_MS) });
        expect(host(report, 'one')).toMatchObject({ reachable: false, unreachable: 'timeout' });
        expect(host(report, 'two')).toMatchObject({ reachable: true });
        expect(ms).toBeLessThan(BUDGET_MS + START_SLACK_MS);
      } finally {
        await peer.sshd.thaw();
      }
      const retried = await runCli(['retry', 'one'], fleet.env, { timeoutMs: 30_000 });
      expect(retried.code, retried.stderr).toBe(0);
    } finally {
      await stopServe();
    }
  });

  it("is this user's alone, bounded, and reads only the peers the service's config lists", async () => {
    await startServe();
    try {
      const mode = (await stat(sock())).mode & 0o777;
      expect(mode).toBe(0o600);
      // Another user cannot connect.
      const other = await runNode(
        [
          '-e',
          `require('node:net').connect(${JSON.stringify(sock())}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); })`,
        ],
        fleet.env,
        { uid: 65534, gid: 65534, cwd: '/' },
      );
      expect(other.stdout.trim()).toMatch(/^(EACCES|EPERM)$/);

      const remote = fleet.peers.remoteCommand;
      const request = (fields: Record<string, unknown>) =>
        `${JSON.stringify({ v: 1, verb: 'snapshot', host: 'one', remote, timeout_ms: 5_000, max_bytes: 1_000_000, ...fields })}\n`;
      expect(await ask(sock(), request({ host: 'evil.example' }))).toEqual({
        hello: true,
        answer: { declined: 'not a peer of this service' },
      });
      expect(await ask(sock(), request({ remote: ['sh', '-c', 'touch /tmp/owned'] }))).toEqual({
        hello: true,
        answer: { declined: 'another remote command than the service reads with' },
      });
      expect(await ask(sock(), request({ verb: 'launch' }))).toEqual({
        hello: true,
        answer: { declined: 'only snapshot is read here' },
      });
      expect(await ask(sock(), request({ host: '-oProxyCommand=touch /tmp/owned' }))).toEqual({
        hello: true,
        answer: { declined: 'not a peer of this service' },
      });
      // A request past its bound is cut off unanswered.
      expect(await ask(sock(), 'x'.repeat(64 * 1024))).toEqual({ hello: true, answer: 'closed' });
      // A configured peer is read.
      const read = await ask(sock(), request({}));
      expect(read.answer).toMatchObject({ reply: { ok: true, value: { host: { probe: { cores: 4 } } } } });
    } finally {
      await stopServe();
    }
  });

  it('reads its peers itself when the service died and left its socket', async () => {
    await startServe();
    const killed = serve;
    serve = undefined;
    killed?.kill('SIGKILL');
    await exited(killed as NonNullable<typeof killed>);
    expect((await stat(sock())).isSocket()).toBe(true);
    await coldCache();
    const { report, ms } = await status({ DOGSLED_TEST_PEER_BUDGET_MS: String(BUDGET_MS) });
    expect(decided(report).every((h) => h.reachable)).toBe(true);
    expect(ms).toBeLessThan(BUDGET_MS + START_SLACK_MS);
    // A service started again makes the socket its own, and the reads travel on its pool once more.
    await startServe();
    try {
      await coldCache();
      await status();
      const before = await connections();
      await coldCache();
      const again = await status();
      expect(decided(again.report).every((h) => h.reachable)).toBe(true);
      expect(await connections()).toEqual(before);
    } finally {
      await stopServe();
    }
  });
});

/** Whether a service listens at `path` (it accepts a connection). */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * Connections the service `pid` accepted on peer-read.sock: /proc/net/unix lists each accepted
 * socket under the name the listener was bound with (`peer-read.sock.PID`, renamed since).
 */
async function accepted(pid: number | undefined): Promise<number> {
  const table = await readFile('/proc/net/unix', 'utf8');
  const lines = table.split('\n').filter((line) => line.endsWith(`/peer-read.sock.${pid}`));
  // One of them is the listener.
  return Math.max(0, lines.length - 1);
}

/** One raw exchange on the socket: whether it greeted, and its answer line (or `closed`). */
function ask(path: string, request: string): Promise<{ hello: boolean; answer: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let heard = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer on ${path}: ${JSON.stringify(heard)}`));
    }, 30_000);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: string) => {
      heard += chunk;
    });
    const done = () => {
      clearTimeout(timer);
      const hello = heard.startsWith('dogsled peer-read 1\n');
      const rest = hello ? heard.slice('dogsled peer-read 1\n'.length) : heard;
      resolve({
        hello,
        answer: rest.includes('\n') ? JSON.parse(rest.slice(0, rest.indexOf('\n'))) : 'closed',
      });
    };
    socket.on('close', done);
    socket.on('error', () => undefined);
  });
}
