// Admission across hosts: a real sshd peer running `dogsled serve` on a fixture /proc, and a caller
// whose own `serve` admits its queue over this host and the peer. This host's room is its policy
// (a memory reserve no host has makes it full), the peer's is its own config. Queued tickets go to
// the peer while this host is full, FIFO per host; a full peer holds its ticket until it has room;
// a launch refused there fails its ticket with the peer's line and starts nothing elsewhere; a stale
// snapshot is never used, nor a peer frozen with SIGSTOP; a service killed mid-admission is settled
// without a second launch; an MCP spawn pinned to the peer starts its child there; callers that wait
// (`place --wait`, `agent --wait`) get what the peer admitted. Admission calls the peer over the
// service's one pooled connection, opened again on the next call once the peer's sshd restarted;
// a service stopped with a launch there under way stops at once and leaves the ticket to its next run.

import { execFileSync } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ticket } from '../../service/core/placement/queue-types.js';
import { updateState } from '../../service/state/engine/store.js';
import { statePaths } from '../../service/state/paths.js';
import { listJobRecords } from '../../service/state/records/job-records.js';
import { writeTaskFile } from '../../service/state/records/launch-files.js';
import { readItems, readQueue, updateItems, updateQueue } from '../../service/state/records/queue-items.js';
import { PeerEntrySchema } from '../../service/state/schemas/peer-schemas.js';
import { readLaunches } from '../fakes/agents/harness.js';
import { exited, runCli, spawnCli, startCli } from '../helpers/cli.js';
import { ticketFixture } from '../helpers/job-fixtures.js';
import { startMcp } from '../helpers/mcp-client.js';
import { advanceStat, writeProc } from '../helpers/proc-fixture.js';
import { waitFor } from '../helpers/wait.js';
import { acceptedConnections, type Fleet, startFleet, untilPeersEligible } from './peers/fleet.js';
import { type PeerHerdr, startPeerHerdr } from './peers/herdr.js';
import { peerSupport } from './peers/index.js';
import { git, makeOrigin } from './peers/origin.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`peers-admission: skipped: ${unsupported}`);

const PEER = 'adm';
/** A memory reserve no host has: every placement there is refused. */
const FULL = 'memory_reserve_bytes = 1000000000000000\ndisk_free_min_percent = 0\n';
const ROOMY = 'memory_reserve_bytes = 0\ndisk_free_min_percent = 0\n';

/** A task the fake agent finishes at once. */
function quickTask(text: string): string {
  return `${text}\n\`\`\`fake-agent\n${JSON.stringify({ steps: [{ reply: 'Finished.' }] })}\n\`\`\`\n`;
}

describe.skipIf(unsupported)('admission across hosts', { timeout: 180_000 }, () => {
  let fleet: Fleet;
  let herdr: PeerHerdr | undefined;
  let serve: ReturnType<typeof startCli> | undefined;
  let ticking = true;
  let ticker: Promise<void> = Promise.resolve();
  let serial = 0;
  let origin: string;
  const io = () => ({ paths: statePaths(fleet.box.state), now: Date.now, warn: () => undefined });
  const peerState = () => join(fleet.peers.peer(PEER).user.home, '.local', 'state', 'dogsled');
  const ticketsNow = async () => (await readQueue(io())).tickets;
  const ticket = async (id: string) => (await ticketsNow()).find((t) => t.id === id) as Ticket;
  const jobsOf = async (dir: string, id: string) =>
    (await listJobRecords(statePaths(dir))).records.filter((record) => record.ticket === id);
  const peerPolicy = (text: string) =>
    fleet.peers.peer(PEER).writeHomeFile('.config/dogsled/config.toml', text);
  /** The caller's cache entry of the peer goes: the next reader asks the peer again. */
  const forget = () => rm(join(fleet.box.state, 'peers', `${PEER}.json`), { force: true });

  /** This host's config: the peer as [[hosts]], and this host's own policy. */
  const localPolicy = (policy: string) =>
    writeFile(
      fleet.box.configPath,
      `remote_command = ${JSON.stringify(fleet.peers.remoteCommand)}\n${policy}\n[[hosts]]\nid = "${PEER}"\ntarget = "${PEER}"\n`,
    );

  const stopServe = async () => {
    if (serve && serve.exitCode === null && serve.signalCode === null) {
      serve.kill('SIGKILL');
      await exited(serve);
    }
    serve = undefined;
  };
  const startServe = async (extra: NodeJS.ProcessEnv = {}) => {
    await stopServe();
    // The peers lane passes every half second: a peer entry forgotten is read again at once, not at
    // the lane's next 10-second turn (each peer's reads keep their 10-second spacing).
    const env = {
      ...fleet.env,
      DOGSLED_TEST_PROBE_ROOT: join(fleet.box.root, 'proc'),
      DOGSLED_TEST_PEERS_PACE_MS: '500',
      ...extra,
    };
    serve = startCli(['serve', '--interval', '0.5'], env);
  };

  /** Job tickets written straight into the queue, a millisecond apart (their FIFO order). */
  const queue = async (
    ...asks: Array<{ pin: string | null; command?: string[]; cwd?: string; branch?: string }>
  ): Promise<string[]> => {
    const base = Date.now();
    const made = asks.map((ask, i) =>
      ticketFixture({
        id: `t_adm${String(++serial).padStart(6, '0')}`,
        pin: ask.pin,
        created_ms: base + i,
        state_ms: base + i,
        request: {
          command: ask.command ?? ['true'],
          cwd: ask.cwd ?? '/tmp',
          ...(ask.branch ? { branch: ask.branch, base: null } : {}),
          timeout_ms: null,
          idle_timeout_ms: null,
          caller_workspace: null,
        },
      }),
    );
    await updateQueue(io(), (current) => ({
      result: undefined,
      next: { ...current, tickets: [...current.tickets, ...made] },
    }));
    return made.map((t) => t.id);
  };
  /**
   * Waits for the ticket's state; given up, it says what the ticket and both services last said, on
   * stderr too (a try that fails and passes again is reported by its error's first line alone).
   */
  const settledAs = (id: string, state: Ticket['state']) => {
    let seen: Ticket | undefined;
    return waitFor(
      () => {
        const said = [
          `ticket ${id} ${state}; last seen: ${JSON.stringify(seen && { state: seen.state, host: seen.host, error: seen.error, state_ms: seen.state_ms })}`,
          `this host's serve said: ${serve?.output().slice(-2_000) ?? '(not running)'}`,
          `the peer's serve said: ${fleet.peers.peer(PEER).serveOutput().slice(-2_000)}`,
        ].join('\n');
        console.error(`peers-admission: gave up waiting for ${said}`);
        return said;
      },
      async () => {
        seen = await ticket(id);
        return seen.state === state ? seen : undefined;
      },
      { timeoutMs: 60_000 },
    );
  };
  const cancel = async (id: string) => {
    const result = await runCli(['cancel', id], fleet.env);
    expect(result.code, result.stderr).toBe(0);
  };

  beforeAll(async () => {
    fleet = await startFleet([{ tag: PEER, cores: 8 }]);
    const proc = join(fleet.box.root, 'proc');
    let total = 10_000;
    await writeProc(proc, { cores: 4, total, idle: total });
    ticker = (async () => {
      while (ticking) {
        total += 100;
        await advanceStat(proc, { cores: 4, total, idle: total }).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await localPolicy(FULL);
    // The caller's repositories, clones of an origin the peer can read, under the caller's home.
    origin = await makeOrigin(fleet, [
      join(fleet.box.home, 'src', 'proj'),
      join(fleet.box.home, 'src', 'other'),
    ]);
    await fleet.peers.peer(PEER).writeHomeFile('.gitconfig', '[safe]\n\tdirectory = *\n');
    herdr = await startPeerHerdr(fleet.peers.peer(PEER));
    await untilPeersEligible(fleet);
  });

  afterAll(async () => {
    await stopServe();
    await herdr?.stop();
    ticking = false;
    await ticker;
    await fleet?.stop();
  });

  it('admits onto the peer while this host is full, and a ticket pinned here holds back nothing pinned there', async () => {
    const [here, unpinned, there] = await queue(
      { pin: 'local' },
      { pin: null, command: ['sh', '-c', 'echo unpinned'] },
      { pin: PEER, command: ['sh', '-c', 'echo pinned'] },
    );
    await startServe();
    for (const id of [unpinned, there] as string[]) {
      const admitted = await settledAs(id, 'admitted');
      expect(admitted).toMatchObject({ host: PEER, error: null });
      // Launched once, there, under this ticket; nothing of it here but the owner's item naming the peer.
      expect(await jobsOf(peerState(), id)).toHaveLength(1);
      expect(await jobsOf(fleet.box.state, id)).toEqual([]);
      const item = (await readItems(io())).items.find((entry) => entry.id === admitted.item);
      expect(item).toMatchObject({ host: PEER, ticket: id, job: admitted.job });
    }
    expect(await ticket(here as string)).toMatchObject({ state: 'pending', host: null });
    await cancel(here as string);
  });

  it("admits over the service's pooled connection to the peer, and reconnects it once sshd restarted", async () => {
    const peer = fleet.peers.peer(PEER);
    // The first admissions above opened the service's connection; every call since goes over it.
    const before = await acceptedConnections(fleet.peers, PEER);
    expect(before).toBeGreaterThan(0);
    const pooled = await queue(
      { pin: PEER, command: ['sh', '-c', 'echo pooled one'] },
      { pin: PEER, command: ['sh', '-c', 'echo pooled two'] },
    );
    for (const id of pooled) expect(await settledAs(id, 'admitted')).toMatchObject({ host: PEER });
    // A reserve and a launch each, and no connection for any of them.
    expect(await acceptedConnections(fleet.peers, PEER)).toBe(before);

    // sshd and every session it carries go (the pooled channel with them), and it comes back.
    await peer.sshd.stop();
    await peer.sshd.start();
    const [after] = await queue({ pin: PEER, command: ['sh', '-c', 'echo reconnected'] });
    expect(await settledAs(after as string, 'admitted')).toMatchObject({ host: PEER, error: null });
    expect(await jobsOf(peerState(), after as string)).toHaveLength(1);
    // One new connection, the pool's, whatever came first over it (a read or admission's reserve).
    expect(await acceptedConnections(fleet.peers, PEER)).toBe(before + 1);
  });

  it('holds a ticket pinned to a full peer until it has room, and fails one its launch refuses there', async () => {
    await peerPolicy(FULL);
    await forget();
    const queued = await runCli(
      ['run', '--host', PEER, '--cwd', '/tmp', '--json', '--', 'sh', '-c', 'echo later'],
      fleet.env,
      { timeoutMs: 60_000 },
    );
    expect(queued.code, queued.stderr).toBe(1);
    const later = JSON.parse(queued.stdout).ticket as string;
    const [missing] = await queue({ pin: PEER, command: ['no-such-command-dogsled', '$(id)'] });
    // A read of the full peer after both were queued: admission judged it and left both waiting.
    const queuedAt = Date.now();
    await waitFor(
      'a read of the full peer',
      async () => {
        const text = await readFile(join(fleet.box.state, 'peers', `${PEER}.json`), 'utf8');
        return JSON.parse(text).read_ms > queuedAt || undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect((await ticket(later)).state).toBe('pending');
    expect((await ticket(missing as string)).state).toBe('pending');
    // Callers that wait for a ticket the peer takes: the reservation there, the child there.
    const placing = spawnCli(['place', '--host', PEER, '--wait', '--json'], fleet.env, {
      timeoutMs: 120_000,
    });
    const child = spawnCli(
      [
        'agent',
        '--host',
        PEER,
        '--wait',
        '--kind',
        'claude',
        '--name',
        'waiter',
        '--cwd',
        '/tmp',
        '--json',
        '--message',
        quickTask('Wait for room there.'),
      ],
      fleet.env,
      { timeoutMs: 120_000 },
    );

    await peerPolicy(ROOMY);
    await forget();
    expect(await settledAs(later, 'admitted')).toMatchObject({ host: PEER });
    expect(await jobsOf(peerState(), later)).toHaveLength(1);
    const failed = await settledAs(missing as string, 'failed');
    expect(failed.error).toMatch(new RegExp(`^${PEER}: .*no-such-command-dogsled`));
    expect(failed.error).not.toMatch(/[\n\r\u001b]/);
    const placed = await placing.done;
    expect(placed.code, placed.stderr).toBe(0);
    const placedDoc = JSON.parse(placed.stdout.trim().split('\n').at(-1) as string);
    expect(placedDoc).toMatchObject({ placed: true, host: PEER });
    const reservations = JSON.parse(
      await readFile(join(peerState(), 'placements.json'), 'utf8'),
    ).reservations;
    expect(reservations.map((r: { id: string }) => r.id)).toContain(placedDoc.reservation);
    const started = await child.done;
    expect(started.code, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout.trim().split('\n').at(-1) as string)).toMatchObject({
      host: PEER,
      name: 'waiter',
    });
    // Never retried elsewhere: no job for it on either host.
    expect(await jobsOf(peerState(), missing as string)).toEqual([]);
    expect(await jobsOf(fleet.box.state, missing as string)).toEqual([]);
  });

  it('settles tickets whose service was killed while admitting them on the peer exactly, never launching twice', async () => {
    const pause = { DOGSLED_TEST_ADMISSION_PAUSE_MS: '600000' };
    const agentTicket = async (name: string): Promise<Ticket> => {
      const launch = `l_${name.replace(/-/g, '')}${++serial}`;
      await writeTaskFile(statePaths(fleet.box.state), launch, quickTask(`Settled exactly: ${name}.`));
      const agent = {
        launch,
        kind: 'claude',
        name,
        profile: null,
        branch: null,
        base: null,
        cwd: '/tmp',
        caller_workspace: null,
      } as const;
      const made = ticketFixture({
        id: `t_adm${String(++serial).padStart(6, '0')}`,
        kind: 'agent',
        pin: PEER,
        request: null,
        agent,
      });
      await updateQueue(io(), (current) => ({
        result: undefined,
        next: { ...current, tickets: [...current.tickets, made] },
      }));
      return made;
    };
    /** The owner's item goes, as if the peer's answer to the launch never came back. */
    const loseItem = async (id: string) => {
      await waitFor(
        'the owner item of the launch on the peer',
        async () => (await readItems(io())).items.some((entry) => entry.id === id) || undefined,
        { timeoutMs: 60_000 },
      );
      await updateItems(io(), (items) => ({
        result: undefined,
        next: { ...items, items: items.items.filter((entry) => entry.id !== id) },
      }));
    };
    const ownerItem = async (id: string | null) =>
      (await readItems(io())).items.find((entry) => entry.id === id);
    // No service admits them before the first below (killed paused) claims the first.
    await stopServe();
    // FIFO on the peer: each service below is killed with the next ticket claimed.
    const [early] = await queue({ pin: PEER, command: ['sh', '-c', 'echo early'] });
    const agentEarly = await agentTicket('never-there');
    const [late] = await queue({ pin: PEER, command: ['sh', '-c', 'echo late'] });
    const agentLate = await agentTicket('lost-reply');
    const [after] = await queue({ pin: PEER });

    // Killed after the claim, before anything was sent: the peer ends the job it never made.
    await startServe({ ...pause, DOGSLED_TEST_ADMISSION_PAUSE_AT: 'before-launch' });
    expect(await settledAs(early as string, 'admitting')).toMatchObject({ host: PEER });
    await startServe({ ...pause, DOGSLED_TEST_ADMISSION_PAUSE_AT: 'before-launch' });
    const failed = await settledAs(early as string, 'failed');
    expect(failed.error).toBe(
      `${failed.job}: never started: the service (pid ${failed.admitter?.pid}) stopped while launching it`,
    );
    const [record] = await jobsOf(peerState(), early as string);
    expect(record).toMatchObject({
      id: failed.job,
      started_ms: null,
      reason: expect.stringMatching(/^never started/),
    });
    expect(record?.ended_ms).not.toBeNull();

    // The same for an agent: its launch record is made failed there, and no launch can take it.
    expect(await settledAs(agentEarly.id, 'admitting')).toMatchObject({ host: PEER });
    await startServe({ ...pause, DOGSLED_TEST_ADMISSION_PAUSE_AT: 'after-launch' });
    const agentFailed = await settledAs(agentEarly.id, 'failed');
    expect(agentFailed.error).toMatch(new RegExp(`^launch ${agentEarly.agent?.launch}: never started: `));
    const launches = join(peerState(), 'launches');
    const tomb = JSON.parse(await readFile(join(launches, `${agentEarly.agent?.launch}.json`), 'utf8'));
    expect(tomb).toMatchObject({ state: 'failed', attempts: 0, ticket: agentEarly.id, started_ms: null });
    expect(await ownerItem(agentFailed.item)).toBeUndefined();

    // Killed after the peer started the job, its answer lost: admitted, the owner's item made again.
    const admitting = await settledAs(late as string, 'admitting');
    await loseItem(admitting.item as string);
    await startServe({ ...pause, DOGSLED_TEST_ADMISSION_PAUSE_AT: 'after-launch' });
    expect(await settledAs(late as string, 'admitted')).toMatchObject({ host: PEER, error: null });
    expect(await ownerItem(admitting.item)).toMatchObject({
      kind: 'job',
      host: PEER,
      job: admitting.job,
      ticket: late,
    });

    // The same for an agent that started there.
    const agentAdmitting = await settledAs(agentLate.id, 'admitting');
    await loseItem(agentAdmitting.item as string);
    await startServe();
    expect(await settledAs(agentLate.id, 'admitted')).toMatchObject({ host: PEER, error: null });
    const started = JSON.parse(await readFile(join(launches, `${agentLate.agent?.launch}.json`), 'utf8'));
    expect(started).toMatchObject({ state: 'started', ticket: agentLate.id });
    expect(await ownerItem(agentAdmitting.item)).toMatchObject({
      kind: 'agent',
      host: PEER,
      pane: started.pane,
    });

    // A later pass of the restarted service launches nothing more.
    await settledAs(after as string, 'admitted');
    expect(await jobsOf(peerState(), early as string)).toHaveLength(1);
    expect(await jobsOf(peerState(), late as string)).toHaveLength(1);
    const tries = await readLaunches(herdr?.logDir as string);
    const of = (launch: string | undefined) =>
      tries.filter((found) => found.task_files?.some((f: string) => f.includes(launch as string)));
    expect(of(agentEarly.agent?.launch)).toEqual([]);
    expect(of(agentLate.agent?.launch)).toHaveLength(1);
  });

  it('admits a run --branch ticket on the peer in its branch worktree there, and fails one whose checkout there has another origin', async () => {
    const peer = fleet.peers.peer(PEER);
    // The peer's checkout of "other" is another repository: nothing may be cloned or made in it.
    const wrong = join(peer.user.home, 'src', 'other');
    await peer.run(['git', 'init', '-q', '-b', 'main', wrong]);
    await peer.run(['git', '-C', wrong, 'remote', 'add', 'origin', '/elsewhere.git']);
    const before = await peer.run(['git', '-C', wrong, 'for-each-ref']);
    const [branched, mismatched] = await queue(
      { pin: PEER, cwd: join(fleet.box.home, 'src', 'proj'), branch: 'feat/queued', command: ['pwd'] },
      { pin: PEER, cwd: join(fleet.box.home, 'src', 'other'), branch: 'feat/wrong', command: ['pwd'] },
    );
    const admitted = await settledAs(branched as string, 'admitted');
    expect(admitted).toMatchObject({ host: PEER, error: null });
    const clone = join(peer.user.home, 'src', 'proj');
    expect(git(clone, 'remote', 'get-url', 'origin').trim()).toBe(origin);
    const [job] = await jobsOf(peerState(), branched as string);
    const worktrees = git(clone, 'worktree', 'list', '--porcelain');
    expect(worktrees).toContain('branch refs/heads/feat/queued');
    expect(worktrees).toContain(`worktree ${job?.cwd}`);
    expect(job?.cwd).not.toBe(clone);
    const failed = await settledAs(mismatched as string, 'failed');
    expect(failed.error).toMatch(new RegExp(`^${PEER}: .*has origin "?/elsewhere\\.git"?, not the caller's`));
    expect(await peer.run(['git', '-C', wrong, 'for-each-ref'])).toBe(before);
    expect(await peer.run(['git', '-C', wrong, 'worktree', 'list'])).not.toContain('feat');
    // Never launched anywhere, nor its worktree made here.
    expect(await jobsOf(peerState(), mismatched as string)).toEqual([]);
    expect(await jobsOf(fleet.box.state, mismatched as string)).toEqual([]);
    expect(git(join(fleet.box.home, 'src', 'other'), 'worktree', 'list')).not.toContain('feat');
  });

  it('never admits on a stale peer snapshot, while this host keeps admitting within its room', async () => {
    await localPolicy(ROOMY);
    await startServe();
    // The peer's entry as if read now, its snapshot a minute old, and no read due for ten minutes.
    const file = join(fleet.box.state, 'peers', `${PEER}.json`);
    await waitFor('a peer entry', async () => (await readFile(file, 'utf8')) || undefined, {
      timeoutMs: 60_000,
    });
    const now = Date.now();
    await updateState(file, PeerEntrySchema, io(), (entry) => {
      if (!entry?.reply) throw new Error('no peer reply cached');
      const reply = { ...entry.reply, host: { ...entry.reply.host, sample_ms: entry.reply.now_ms - 60_000 } };
      return {
        result: undefined,
        next: { ...entry, attempt_ms: now, read_ms: now, retry_at_ms: now + 600_000, reply },
      };
    });
    const [pinned, unpinned] = await queue({ pin: PEER }, { pin: null });
    expect(await settledAs(unpinned as string, 'admitted')).toMatchObject({ host: 'local' });
    // Admission saw only the stale snapshot, and the ticket pinned there still waits.
    expect(JSON.parse(await readFile(file, 'utf8')).retry_at_ms).toBe(now + 600_000);
    expect(await ticket(pinned as string)).toMatchObject({ state: 'pending', host: null });
    await forget();
    expect(await settledAs(pinned as string, 'admitted')).toMatchObject({ host: PEER });
  });

  it('queues an MCP spawn pinned to the peer and starts the child there', async () => {
    const { HERDR_SOCKET_PATH: _s, HERDR_ENV: _e, ...env } = fleet.env;
    const server = await startMcp(env, '/tmp');
    try {
      const task = quickTask('Queued for the peer.');
      const answer = await server.json<{ queued: boolean; ticket: string }>('spawn', {
        kind: 'claude',
        name: 'spawned-there',
        message: task,
        host: PEER,
        cwd: '/tmp',
      });
      expect(answer.queued).toBe(true);
      const admitted = await settledAs(answer.ticket, 'admitted');
      expect(admitted).toMatchObject({ host: PEER, error: null });
      const launch = admitted.agent?.launch as string;
      const launches = join(peerState(), 'launches');
      const record = JSON.parse(await readFile(join(launches, `${launch}.json`), 'utf8'));
      expect(record).toMatchObject({ state: 'started', name: 'spawned-there', ticket: answer.ticket });
      expect(await readFile(join(launches, `${launch}.task.md`), 'utf8')).toContain('Queued for the peer.');
      const started = await waitFor(
        'the child on the peer',
        async () => {
          const found = await readLaunches(herdr?.logDir as string);
          return found.length > 0 ? found : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(
        started.filter((found) => found.task_files?.some((f: string) => f.includes(launch))),
      ).toHaveLength(1);
      // The task went with the child; the owner's item names the peer and the pane there.
      await expect(readFile(join(fleet.box.state, 'launches', `${launch}.task.md`))).rejects.toThrow();
      const item = (await readItems(io())).items.find((entry) => entry.id === admitted.item);
      expect(item).toMatchObject({ kind: 'agent', host: PEER, pane: record.pane, launch });
    } finally {
      await server.close();
    }
  });

  it("launches a child admitted there with its caller's PATH, its home mapped to the peer's, and refuses a harness that PATH lacks at once, with no pane there", async () => {
    const peer = fleet.peers.peer(PEER);
    const home = peer.user.home;
    // A claude that only the caller's PATH names (under its home, so under the peer's home there),
    // which says what PATH it ran with; the peer's Herdr panes find the plain fake instead.
    const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
    const fake = join(peer.fakes, 'agents', 'bin', 'claude');
    const mark = join(home, 'marked-claude.log');
    await peer.writeHomeFile(
      'marked-bin/claude',
      `#!/bin/sh\nprintf '%s\\n' "$PATH" >> ${quote(mark)}\nexec ${quote(process.execPath)} ${quote(fake)} "$@"\n`,
    );
    await peer.run(['chmod', '755', join(home, 'marked-bin', 'claude')]);
    if (serve === undefined) await startServe();
    const { HERDR_SOCKET_PATH: _s, HERDR_ENV: _e, ...env } = fleet.env;
    const server = await startMcp(
      { ...env, PATH: `${join(fleet.box.home, 'marked-bin')}:${env.PATH}` },
      '/tmp',
    );
    let answer: { queued: boolean; ticket: string };
    try {
      answer = await server.json('spawn', {
        kind: 'claude',
        name: 'pathed',
        message: quickTask('Run with my PATH.'),
        host: PEER,
        cwd: '/tmp',
      });
    } finally {
      await server.close();
    }
    expect(answer.queued).toBe(true);
    expect(await settledAs(answer.ticket, 'admitted')).toMatchObject({ host: PEER, error: null });
    const ran = await waitFor(
      'the marked claude on the peer',
      async () => (await readFile(mark, 'utf8').catch(() => '')).trim() || undefined,
    );
    const dirs = ran.split('\n')[0]?.split(':') ?? [];
    expect(dirs.slice(0, 2)).toEqual([join(home, 'marked-bin'), join(home, '.local', 'bin')]);
    expect(dirs).not.toContain(join(fleet.box.home, 'marked-bin'));

    // Pinned there and placed at once (the earlier cases' reservations there are dropped, and the
    // caller reads the peer afresh): the peer refuses it before any clone, file or pane.
    await rm(join(peerState(), 'placements.json'), { force: true });
    await forget();
    const panes = async () =>
      ((await (herdr as PeerHerdr).call('pane.list')).result as { panes: unknown[] }).panes.length;
    const before = await panes();
    const launches = async () => (await readdir(join(peerState(), 'launches')).catch(() => [])).sort();
    const files = await launches();
    // The test's ssh, git and the system's tools: no harness, here or there.
    const bare = `${join(fleet.box.root, 'bin')}:/usr/bin:/bin`;
    const refused = await runCli(
      [
        'agent',
        '--host',
        PEER,
        '--kind',
        'claude',
        '--name',
        'nowhere',
        '--cwd',
        '/tmp',
        '--message',
        quickTask('x'),
      ],
      { ...fleet.env, PATH: bare },
      { timeoutMs: 60_000 },
    );
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 2,
      stderr: `dogsled: agent: ${PEER}: cannot start agent nowhere: claude is not found on the caller's PATH ${bare}\n`,
    });
    expect(await panes()).toBe(before);
    expect(await launches()).toEqual(files);
  });

  it('takes a peer frozen with SIGSTOP as a refusal, and this host keeps admitting meanwhile', async () => {
    const peer = fleet.peers.peer(PEER);
    // The peer as a whole: its sshd (listener and sessions) and every process of its user.
    const pids = [
      peer.sshd.pid(),
      ...execFileSync('pgrep', ['-u', peer.user.name], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map(Number),
    ];
    const said = serve?.output().length ?? 0;
    for (const pid of pids) signal(pid, 'SIGSTOP');
    try {
      const [frozen, here] = await queue({ pin: PEER }, { pin: 'local' });
      expect(await settledAs(here as string, 'admitted')).toMatchObject({ host: 'local' });
      expect(await ticket(frozen as string)).toMatchObject({ state: 'pending', host: null });
      // Its silence was a refusal that passes admission on, never a pass that failed.
      expect(serve?.output().slice(said)).not.toMatch(/dogsled serve: admission:/);
    } finally {
      for (const pid of pids) signal(pid, 'SIGCONT');
    }
  });

  it('stops at once with a launch there under way, its ticket left admitting for the next run to settle', async () => {
    const peer = fleet.peers.peer(PEER);
    // Claimed, then a pause before the launch there, long enough to freeze the peer's `host rpc`
    // under the service's connection and ask the service to stop.
    await startServe({
      DOGSLED_TEST_ADMISSION_PAUSE_MS: '3000',
      DOGSLED_TEST_ADMISSION_PAUSE_AT: 'before-launch',
    });
    const stopping = serve as ReturnType<typeof startCli>;
    const [cut] = await queue({ pin: PEER, command: ['sh', '-c', 'echo cut'] });
    const claimed = await settledAs(cut as string, 'admitting');
    const rpc = execFileSync('pgrep', ['-u', peer.user.name, '-f', 'host rpc'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
    for (const pid of rpc) signal(pid, 'SIGSTOP');
    try {
      const asked = performance.now();
      stopping.kill('SIGTERM');
      const end = await exited(stopping);
      // Held by the frozen peer, it would wait out the launch's 30 s routine limit.
      expect(performance.now() - asked).toBeLessThan(15_000);
      expect(end, stopping.output()).toEqual({ code: 0, signal: null });
      expect(stopping.output()).not.toMatch(/dogsled serve: admission/);
      // As a crash leaves it: nothing decided from a call the stop cut short.
      expect(await ticket(cut as string)).toMatchObject({
        state: 'admitting',
        host: PEER,
        admitter: { pid: stopping.pid },
        error: null,
      });
    } finally {
      for (const pid of rpc) signal(pid, 'SIGCONT');
    }
    await startServe();
    const failed = await settledAs(cut as string, 'failed');
    expect(failed.error).toBe(
      `${claimed.job}: never started: the service (pid ${stopping.pid}) stopped while launching it`,
    );
    expect((await jobsOf(peerState(), cut as string)).every((record) => record.started_ms === null)).toBe(
      true,
    );
  });
});

/** A process that ended meanwhile (a short-lived one of the peer's user) is simply gone. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
