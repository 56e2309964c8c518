// Placement and jobs across a fleet of real sshd peers, each running `dogsled serve` on a fixture
// /proc of its own size: `place` picks the freest host and the peer's own recheck writes the
// reservation there; `--host` pins; a remote job runs with every argument unchanged and its exit
// status; `ps --all`, `logs --follow`, `stop` and `wait` of a job on a peer, and its stop from MCP.

import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statePaths } from '../../service/state/paths.js';
import { readQueue } from '../../service/state/records/queue-items.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startMcp } from '../helpers/mcp-client.js';
import { waitFor } from '../helpers/wait.js';
import { keyOf } from './peers/client.js';
import { type Fleet, startFleet, untilPeersEligible } from './peers/fleet.js';
import { peerSupport } from './peers/index.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`peers-jobs: skipped: ${unsupported}`);

/** Words a shell would split, expand, glob or take for options, had they been spliced into a line. */
const HOSTILE = ['-n', "it's", 'a "b" c', '$(id)', '`id`', '*', '~', 'x\ny', ';rm -rf /', ''];

describe.skipIf(unsupported)('placement and jobs across a fleet', () => {
  let fleet: Fleet;
  const coldCache = () => rm(join(fleet.box.state, 'peers'), { recursive: true, force: true });
  /** The peer cache entries this host holds: which peers were read. */
  const peerEntries = async () =>
    (await readdir(join(fleet.box.state, 'peers')).catch(() => [] as string[]))
      .filter((name) => name.endsWith('.json'))
      .sort();
  const pendingTickets = async () =>
    (
      await readQueue({ paths: statePaths(fleet.box.state), now: Date.now, warn: () => undefined })
    ).tickets.filter((ticket) => ticket.state === 'pending');
  const peerPlacements = async (tag: string) => {
    const home = fleet.peers.peer(tag).user.home;
    const text = await readFile(join(home, '.local', 'state', 'dogsled', 'placements.json'), 'utf8');
    return JSON.parse(text).reservations as Array<{ id: string }>;
  };

  beforeAll(async () => {
    // small's jobs must show in its snapshot soon after they start (`ps --all`); big and mid are
    // only placed on, reserved on and run on, which their ticks take no part in.
    fleet = await startFleet([
      { tag: 'small', cores: 4 },
      { tag: 'big', cores: 16, interval: '5' },
      { tag: 'mid', cores: 8, interval: '5' },
    ]);
    await untilPeersEligible(fleet);
  });

  afterAll(async () => {
    await fleet?.stop();
  });

  it('places on the freest host, whose own recheck writes the reservation there; --host pins', async () => {
    const placed = await runCli(['place', '--json'], fleet.env, { timeoutMs: 30_000 });
    expect(placed.code, placed.stderr).toBe(0);
    const doc = JSON.parse(placed.stdout);
    expect(doc).toMatchObject({ placed: true, host: 'big', label: 'big' });
    expect((await peerPlacements('big')).map((r) => r.id)).toContain(doc.reservation);
    const pinned = JSON.parse((await runCli(['place', '--host', 'mid', '--json'], fleet.env)).stdout);
    expect(pinned).toMatchObject({ placed: true, host: 'mid' });
    expect((await peerPlacements('mid')).map((r) => r.id)).toContain(pinned.reservation);
    const unknown = await runCli(['place', '--host', 'nowhere'], fleet.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown host "nowhere" (known: local, small, big, mid)');
  });

  it('runs a job on a pinned peer with every argument unchanged, and exits with its status', async () => {
    const script = 'for a in "$@"; do printf "[%s]" "$a"; done; hostname >/dev/null; exit 3';
    const result = await runCli(
      ['run', '--host', 'mid', '--cwd', '/tmp', '--wait', '--', 'sh', '-c', script, 'sh', ...HOSTILE],
      fleet.env,
      { timeoutMs: 60_000 },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(HOSTILE.map((word) => `[${word}]`).join(''));
    expect(result.code).toBe(3);
  });

  it('lists, follows, stops and waits for a job on a peer', async () => {
    const started = await runCli(
      ['run', '--host', 'small', '--cwd', '/tmp', '--json', '--', 'sh', '-c', 'echo started; exec sleep 60'],
      fleet.env,
      { timeoutMs: 60_000 },
    );
    expect(started.code, started.stderr).toBe(0);
    const doc = JSON.parse(started.stdout);
    expect(doc).toMatchObject({ queued: false, host: 'small' });
    const id: string = doc.job;
    expect(id).toMatch(/^j_/);
    const follow = spawnCli(['logs', id, '--follow'], fleet.env, { timeoutMs: 60_000 });
    let followed = '';
    follow.child.stdout?.on('data', (chunk: Buffer) => {
      followed += chunk.toString('utf8');
    });
    await waitFor('the job output', async () => (followed.includes('started\n') ? true : undefined), {
      timeoutMs: 20_000,
    });
    await coldCache();
    const ps = JSON.parse((await runCli(['ps', '--all', '--json'], fleet.env, { timeoutMs: 30_000 })).stdout);
    expect(ps.jobs.find((j: { id: string }) => j.id === id)).toMatchObject({
      host: 'small',
      state: 'running',
    });
    const stopped = await runCli(['stop', id], fleet.env, { timeoutMs: 30_000 });
    expect(stopped.code, stopped.stderr).toBe(0);
    const done = await follow.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('started\n');
    const waited = await runCli(['wait', id], fleet.env, { timeoutMs: 30_000 });
    expect(waited.code).toBe(143);
    const logs = await runCli(['logs', id], fleet.env);
    expect(logs.stdout).toBe('started\n');
  });

  it('stops from MCP a job that MCP run placed on a peer, as `dogsled stop` does', async () => {
    // The tools and the commands call the same actions: the peer is found, and stopped, the same way.
    const mcp = await startMcp(fleet.env, '/tmp');
    const small = fleet.peers.peer('small');
    try {
      // The peer's record quotes the command back: a title escape in it never reaches the client.
      const started = await mcp.json<{ queued: boolean; job: string; host: string }>('run', {
        command: ['sh', '-c', 'echo started; exec sleep 60', 'sh', '\x1b]0;owned\x07'],
        host: 'small',
        cwd: '/tmp',
      });
      expect(started).toMatchObject({ queued: false, host: 'small' });
      const id = started.job;
      const stopped = await mcp.call('stop', { job: id });
      expect(stopped.isError, stopped.text).toBe(false);
      const record = JSON.parse(stopped.text);
      expect(record).toMatchObject({
        id,
        host: 'small',
        command: ['sh', '-c', expect.any(String), 'sh', expect.any(String)],
      });
      expect(record.command[4]).not.toMatch(/[\x1b\x07]/);
      // Stopped there: its final record says the signal, as `wait` of it exits 128 + SIGTERM.
      const waited = await runCli(['wait', id], fleet.env, { timeoutMs: 30_000 });
      expect(waited.code, waited.stderr).toBe(143);
      // A job that ended is no error either, from either front end: both find it on the peer.
      expect(JSON.parse((await mcp.call('stop', { job: id })).text)).toMatchObject({ id, host: 'small' });
      const again = await runCli(['stop', id, '--json'], fleet.env, { timeoutMs: 30_000 });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ id, host: 'small' });
      // A peer that cannot be reached is a one-line error naming it, not an unknown job.
      await small.sshd.stop();
      try {
        const unreachable = await mcp.call('stop', { job: id });
        expect(unreachable.isError).toBe(true);
        expect(unreachable.text).toMatch(/^dogsled: stop: small: unreachable: [^\n]*$/);
      } finally {
        await small.sshd.start();
        await coldCache();
      }
    } finally {
      await mcp.close();
    }
  });

  it('runs doctor and prune on a peer with --host: its own plan, asked here, applied there', async () => {
    const peer = fleet.peers.peer('big');
    // A remembered repository that is gone: removable, and nothing but prune removes it.
    const gone = `${peer.user.home}/src/it's gone $HOME`;
    const registry = { version: 1, repositories: [{ path: gone, added_ms: 1, last_seen_ms: 1 }] };
    await peer.writeHomeFile('.local/state/dogsled/repositories.json', JSON.stringify(registry));
    const doctor = await runCli(['doctor', '--host', 'big', '--json'], fleet.env, { timeoutMs: 60_000 });
    expect(doctor.code, doctor.stderr).toBe(0);
    expect(JSON.parse(doctor.stdout).host).toBe('big');
    expect(JSON.parse(doctor.stdout).repositories).toEqual([
      expect.objectContaining({ path: gone, removable: true }),
    ]);
    const asked = await runCli(['prune', '--host', 'big', 'repositories'], fleet.env, { timeoutMs: 60_000 });
    expect(asked.code).toBe(2);
    // The plan folds a long line at a space (the path has two), to an indented next line.
    expect(asked.stdout.replace(/\s+/g, ' ')).toContain(gone);
    expect(asked.stderr).toContain('not a terminal, so nothing was removed');
    const pruned = await runCli(['prune', '--host', 'big', '--yes', '--json', 'repositories'], fleet.env, {
      timeoutMs: 60_000,
    });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout).results).toEqual([expect.objectContaining({ path: gone })]);
    const again = await runCli(['prune', '--host', 'big', 'repositories'], fleet.env, { timeoutMs: 60_000 });
    expect(again.stdout).toBe('nothing to prune\n');
  });
  it('reads only the pinned host: a frozen peer elsewhere is not read for --host local or --host mid', async () => {
    const small = fleet.peers.peer('small');
    await coldCache();
    await small.sshd.freeze();
    try {
      // No service runs on this host here, so it has no room: the pin queues a ticket, reading no peer.
      const local = await runCli(['place', '--host', 'local', '--json'], fleet.env, { timeoutMs: 30_000 });
      expect(local.code, local.stderr).toBe(1);
      expect(await peerEntries()).toEqual([]);
      const cancelled = await runCli(['cancel', JSON.parse(local.stdout).ticket], fleet.env);
      expect(cancelled.code, cancelled.stderr).toBe(0);
      const mid = await runCli(['place', '--host', 'mid', '--json'], fleet.env, { timeoutMs: 30_000 });
      expect(mid.code, mid.stderr).toBe(0);
      expect(JSON.parse(mid.stdout)).toMatchObject({ placed: true, host: 'mid' });
      expect(await peerEntries()).toEqual(['mid.json']);
    } finally {
      await small.sshd.thaw();
    }
  });

  it('refuses work pinned to a peer that refuses our key or whose key changed at once, queueing nothing', async () => {
    const other = keyOf(await readFile(`${fleet.peers.client.identity}.pub`, 'utf8'));
    await coldCache();
    try {
      await fleet.writeConfig({ big: 'nobody-at-all@big' });
      await fleet.peers.writeKnownHosts({ mid: other });
      const place = await runCli(['place', '--host', 'big', '--wait', '--max', '30s', '--json'], fleet.env, {
        timeoutMs: 60_000,
      });
      expect(place.stdout).toBe('');
      expect(place.stderr).toBe(
        'dogsled: place: big: unreachable: auth (it refuses our key): run `ssh nobody-at-all@big` to review the key\n',
      );
      expect(place.code).toBe(2);
      const run = await runCli(['run', '--host', 'mid', '--wait', '--max', '30s', '--', 'true'], fleet.env, {
        timeoutMs: 60_000,
      });
      expect(run.stderr).toBe(
        'dogsled: run: mid: unreachable: host key (its key is not the one on file): run `ssh mid` to review the key\n',
      );
      expect(run.code).toBe(2);
      const agent = await runCli(
        [
          'agent',
          '--host',
          'big',
          '--kind',
          'claude',
          '--name',
          'keyless',
          '--wait',
          '--max',
          '30s',
          '--message',
          'hello',
        ],
        fleet.env,
        { timeoutMs: 60_000 },
      );
      expect(agent.stderr).toMatch(/^dogsled: agent: big: unreachable: auth \(it refuses our key\)/);
      expect(agent.code).toBe(2);
      // Nothing waits for them: no ticket, and no task file of the refused child.
      expect((await pendingTickets()).map((t) => t.pin)).toEqual([]);
      expect(await readdir(join(fleet.box.state, 'launches')).catch(() => [])).toEqual([]);
    } finally {
      await fleet.writeConfig();
      await fleet.peers.writeKnownHosts();
      await coldCache();
    }
    // A failure that passes by itself is worth waiting for: a stopped sshd queues the pinned work.
    const small = fleet.peers.peer('small');
    await small.sshd.stop();
    try {
      const queued = await runCli(['place', '--host', 'small', '--json'], fleet.env, { timeoutMs: 30_000 });
      expect(queued.code, queued.stderr).toBe(1);
      expect(queued.stderr).toContain('unreachable: connection refused');
      await runCli(['cancel', JSON.parse(queued.stdout).ticket], fleet.env);
    } finally {
      await small.sshd.start();
      await coldCache();
    }
  });
});
