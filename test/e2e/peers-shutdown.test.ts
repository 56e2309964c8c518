// `serve` stops whatever its peers do: a real sshd peer frozen with SIGSTOP (its listener, its
// per-connection processes and the `host rpc` under them) while the service's pool is at every
// stage with it: before the SSH banner, idle on an open pooled connection, a read under way, a
// ticket pinned there being admitted (`host reserve` under the queue lock), and the outbox pull
// that follows a read. Each time SIGTERM ends the process, lock released and state intact, with no
// socket left open to the peer (a half-closed one kept the process alive until the peer thawed).

import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { statePaths } from '../../service/state/paths.js';
import { readQueue } from '../../service/state/records/queue-items.js';
import { exited, startCli } from '../helpers/cli.js';
import { itemFixture, ticketFixture } from '../helpers/job-fixtures.js';
import { waitFor } from '../helpers/wait.js';
import { appendItems, appendTickets } from '../integration/jobs/job-queue-fixtures.js';
import { type Fleet, startFleet, untilPeersEligible } from './peers/fleet.js';
import { peerSupport } from './peers/index.js';
import { run } from './peers/procs.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`peers-shutdown: skipped: ${unsupported}`);

/** A hang detector far above the 2 s the service has to exit: not a speed assertion. */
const HANG_MS = 10_000;

describe.skipIf(unsupported)('serve stops with a frozen peer', () => {
  let fleet: Fleet;
  let serve: ReturnType<typeof startCli> | undefined;
  const entry = () => join(fleet.box.state, 'peers', 'big.json');
  const port = () => fleet.peers.peer('big').sshd.port;

  /** TCP connections between this host and big's sshd, seen from the sshd's end. */
  const sshdSockets = async () =>
    (await run(['ss', '-Htn', 'state', 'all', `( sport = :${port()} )`]))
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^LISTEN/.test(line.trim()));
  const established = async () =>
    (await run(['ss', '-Htn', 'state', 'established', `( sport = :${port()} )`])).trim() !== '';
  /** Bytes the service sent that the frozen sshd has not read: a call under way there. */
  const unread = async () =>
    (await run(['ss', '-Htn', 'state', 'established', `( sport = :${port()} )`]))
      .split('\n')
      .some((line) => Number(line.trim().split(/\s+/)[0]) > 0);

  const startServe = (extra: NodeJS.ProcessEnv = {}) => {
    serve = startCli(['serve', '--interval', '1'], { ...fleet.env, ...extra });
    return serve;
  };

  /** SIGTERM; the process must be gone (not only its lock), exit 0, with nothing of the peer's left. */
  const stopsCleanly = async (child: ReturnType<typeof startCli>) => {
    child.kill('SIGTERM');
    const end = await Promise.race([
      exited(child),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), HANG_MS).unref()),
    ]);
    const sockets = await sshdSockets();
    if (end === 'hung') child.kill('SIGKILL');
    expect(end, `${child.output()}\nsockets to the frozen sshd:\n${sockets.join('\n')}`).toEqual({
      code: 0,
      signal: null,
    });
    expect(existsSync(join(fleet.box.state, 'service.lock'))).toBe(false);
    expect(existsSync(`${entry()}.lock`)).toBe(false);
    expect(existsSync(join(fleet.box.state, 'queue.json.lock'))).toBe(false);
    // Nothing to say about calls the stop cut short.
    expect(child.output()).not.toMatch(/big|abort|error/i);
    JSON.parse(await readFile(join(fleet.box.state, 'host.json'), 'utf8'));
  };

  /** A first pooled read of big done: its entry written, the pooled connection open. */
  const pooled = async () => {
    await waitFor('a first pooled read', async () => (existsSync(entry()) ? true : undefined), {
      timeoutMs: 30_000,
    });
    await waitFor('the pooled connection', async () => (await established()) || undefined, {
      timeoutMs: 30_000,
    });
  };

  beforeAll(async () => {
    // Read, reserved on and frozen: no case waits on a tick of big's.
    fleet = await startFleet([{ tag: 'big', cores: 8, interval: '5' }]);
    await untilPeersEligible(fleet);
    // The service reads big itself: no entry of another reader's stands in for its pooled read.
    await rm(join(fleet.box.state, 'peers'), { recursive: true, force: true });
  });

  afterEach(async () => {
    await fleet.peers.peer('big').sshd.thaw();
    if (serve && serve.exitCode === null && serve.signalCode === null) {
      serve.kill('SIGKILL');
      await exited(serve);
    }
    serve = undefined;
    // Each case owns its own work: none is left for the next service.
    for (const name of ['items.json', 'items.json.prev', 'queue.json', 'queue.json.prev', 'peers'])
      await rm(join(fleet.box.state, name), { recursive: true, force: true });
  });

  afterAll(async () => {
    await fleet?.stop();
  });

  it('with an idle pooled connection (an open job item there)', async () => {
    await appendItems(fleet.box, [itemFixture({ id: 'i_idle00001', host: 'big', job: 'j_idle00001' })]);
    const child = startServe();
    await pooled();
    await fleet.peers.peer('big').sshd.freeze();
    await stopsCleanly(child);
  });

  it('with a read under way on the pooled connection', async () => {
    await appendItems(fleet.box, [itemFixture({ id: 'i_read00001', host: 'local', job: null })]);
    // The lane passes every 200 ms: once big's entry is gone, its next read starts at once.
    const child = startServe({ DOGSLED_TEST_PEERS_PACE_MS: '200' });
    await pooled();
    await fleet.peers.peer('big').sshd.freeze();
    await rm(entry(), { force: true });
    await waitFor(
      "big's read sent on the frozen connection",
      async () => (existsSync(`${entry()}.lock`) && (await unread())) || undefined,
      { timeoutMs: 30_000 },
    );
    await stopsCleanly(child);
    // The cut read says nothing of the peer: no entry written.
    expect(existsSync(entry())).toBe(false);
  });

  it('before the SSH banner (the peer frozen before the service connects)', async () => {
    await appendItems(fleet.box, [itemFixture({ id: 'i_hand00001', host: 'local', job: null })]);
    await fleet.peers.peer('big').sshd.freeze();
    const child = startServe();
    await waitFor(
      'a connection to the frozen sshd',
      async () => (existsSync(`${entry()}.lock`) && (await established())) || undefined,
      { timeoutMs: 30_000 },
    );
    await stopsCleanly(child);
    expect(existsSync(entry())).toBe(false);
  });

  it('while admitting a ticket pinned there (host reserve under way)', async () => {
    await appendItems(fleet.box, [itemFixture({ id: 'i_pin000001', host: 'local', job: null })]);
    const child = startServe();
    await pooled();
    // Its cached snapshot is fresh and roomy: admission asks big to reserve, and big is frozen.
    await fleet.peers.peer('big').sshd.freeze();
    await appendTickets(fleet.box, [ticketFixture({ id: 't_pin000001', pin: 'big' })]);
    await waitFor(
      'host reserve sent to the frozen peer under the queue lock',
      async () => (existsSync(join(fleet.box.state, 'queue.json.lock')) && (await unread())) || undefined,
      { timeoutMs: 30_000 },
    );
    await stopsCleanly(child);
    // Cut short, the admission decided nothing: the ticket waits for the next run.
    const io = { paths: statePaths(fleet.box.state), now: Date.now, warn: () => undefined };
    const ticket = (await readQueue(io)).tickets.find((t) => t.id === 't_pin000001');
    expect(ticket?.state).toBe('pending');
  });

  it('while pulling its outbox after a read', async () => {
    // A child there: after each read of big the service claims what big's outbox holds for it.
    await appendItems(fleet.box, [
      itemFixture({ id: 'i_outb00001', kind: 'agent', host: 'big', pane: 'w1:p1', job: null }),
    ]);
    // The read's answer is in; the service holds big's entry 2 s before writing it, then pulls.
    const child = startServe({
      DOGSLED_TEST_LOCK_HOLD_FILE: 'big.json',
      DOGSLED_TEST_LOCK_HOLD_MS: '2000',
    });
    await waitFor(
      "big's first read answered",
      async () => (existsSync(`${entry()}.holding`) ? true : undefined),
      { timeoutMs: 30_000 },
    );
    await fleet.peers.peer('big').sshd.freeze();
    await waitFor(
      'the outbox claim sent to the frozen peer',
      async () => (!existsSync(`${entry()}.holding`) && existsSync(entry()) && (await unread())) || undefined,
      { timeoutMs: 30_000 },
    );
    await stopsCleanly(child);
  });
});
