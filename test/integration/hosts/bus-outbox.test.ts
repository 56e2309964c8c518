// Records across hosts on the fleet bus, with a real nats-server (2.9) configured as the README's
// sample: what a child's host leaves in its outbox for an owner met on the bus travels through the
// outbox stream to the owner's durable consumer, and the owner's service writes it into the owner
// pane's inbox and its items and acknowledges it after the write. Never twice, never lost: the
// server restarted under load, the owner killed between its write and its ack (the record comes
// again), the child's host killed between its post and its own ack (posted again, stored once by its
// id). A hostile message in the stream is dropped with one warning and blocks nothing behind it.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../../service/core/agents/item-types.js';
import { pendingRecord } from '../../../service/core/inbox/inbox.js';
import { type Posted, postForHost } from '../../../service/inbox/outbox.js';
import { newId } from '../../../service/state/engine/ids.js';
import { statePaths } from '../../../service/state/paths.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import {
  type BusHost,
  type BusUser,
  busUser,
  credsText,
  readmeAuthorization,
  restartBusHost,
  startBusHost,
  stopBusHost,
  stopBusService,
  untilSeen,
} from '../../helpers/bus-hosts.js';
import { exited } from '../../helpers/cli.js';
import { itemFixture } from '../../helpers/job-fixtures.js';
import { NatsServer } from '../../helpers/nats-server.js';
import { waitFor } from '../../helpers/wait.js';
import { appendItems } from '../jobs/job-queue-fixtures.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON documents, asserted field by field
type Json = any;

/** Leases and the owner's ack wait, short: a record a dead service held comes again in 2 s. */
const KNOBS = { DOGSLED_TEST: '1', DOGSLED_TEST_OUTBOX_LEASE_MS: '2000' };

let nats: NatsServer;
let users: Record<'alpha' | 'bravo', BusUser>;
let herdr: FakeHerdr;
let alpha: BusHost;
let bravo: BusHost;
let owner: { pane: string; terminal: string };
let alphaIdentity: string;

const bravoIO = () => ({ paths: statePaths(bravo.box.state), now: Date.now, warn: () => {} });

async function inbox(): Promise<Json[]> {
  const text = await readFile(join(alpha.box.state, 'inbox', `${owner.terminal}.json`), 'utf8').catch(
    () => '{"records":[]}',
  );
  return JSON.parse(text).records;
}

async function outbox(): Promise<Json[]> {
  const text = await readFile(join(bravo.box.state, 'outbox.json'), 'utf8').catch(() => '{"records":[]}');
  return JSON.parse(text).records;
}

/** A message for the owner pane, as a child on bravo posts one. */
function message(ref: string, text: string): Posted {
  const record = pendingRecord(
    {
      id: newId('m'),
      kind: 'reply',
      sender: { pane: 'w9:p1', terminal: 't9', host: 'local', name: 'kid' },
      text,
      ref,
    },
    Date.now(),
  );
  return { ref, message: { owner_pane: owner.pane, record } };
}

async function post(item: string, posted: Posted | Posted[]): Promise<void> {
  await postForHost(bravoIO(), alphaIdentity, item, posted);
}

/** The owner's items as its service keeps them. */
async function items(): Promise<Item[]> {
  return JSON.parse(await readFile(join(alpha.box.state, 'items.json'), 'utf8')).items;
}

/** The stream's state, read as bravo's user (who may read only that). */
async function streamState(): Promise<{ messages: number; last_seq: number }> {
  const nc = await connect({
    servers: nats.url,
    authenticator: credsAuthenticator(new TextEncoder().encode(credsText(users.bravo))),
    inboxPrefix: '_INBOX_bravo',
  });
  try {
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    return (await jsm.streams.info('dogsled_outbox')).state;
  } finally {
    await nc.close();
  }
}

const refs = async (prefix: string) => (await inbox()).filter((r) => String(r.ref).startsWith(prefix));

beforeAll(async () => {
  users = { alpha: busUser('alpha'), bravo: busUser('bravo') };
  nats = await NatsServer.start(await readmeAuthorization(Object.values(users)));
  alpha = await startBusHost('alpha', nats.url, { user: users.alpha, env: KNOBS });
  herdr = await startFakeHerdr({ dir: join(alpha.box.root, 'herdr') });
  const made = (await herdr.call('workspace.create', { cwd: alpha.box.home })).result as Json;
  owner = { pane: made.root_pane.pane_id, terminal: made.root_pane.terminal_id };
  // The owner's service finds its Herdr as a service started in a Herdr session does.
  alpha.env = { ...alpha.env, HERDR_SOCKET_PATH: herdr.socketPath, HERDR_ENV: '1' };
  await stopBusService(alpha);
  restartBusHost(alpha);
  bravo = await startBusHost('bravo', nats.url, { user: users.bravo, env: KNOBS });
  await untilSeen(bravo, ['alpha']);
  await untilSeen(alpha, ['bravo']);
  alphaIdentity = JSON.parse(await readFile(join(alpha.box.state, 'identity.json'), 'utf8')).id;
  // Bravo knows alpha's identity from alpha's document before any record is posted.
  await waitFor('bravo to know who alpha is', async () => {
    const entry = JSON.parse(await readFile(join(bravo.box.state, 'peers', 'alpha.json'), 'utf8'));
    return entry.reply?.bus?.identity === alphaIdentity;
  });
});

afterAll(async () => {
  await Promise.all([alpha, bravo].filter(Boolean).map(stopBusHost));
  await herdr?.stop();
  await nats?.stop();
});

describe('records across hosts on the bus', () => {
  it("reach the owner's inbox and items through the stream, once, and leave the child's outbox", async () => {
    const item = newId('i');
    await appendItems(alpha.box, [
      itemFixture({ id: item, kind: 'agent', host: 'bravo', owner: owner.pane }),
    ]);
    await post(item, [
      message(`reply:${item}`, 'kid finished: all done \u001b[31mred'),
      { ref: `closed:${item}`, closed: { reason: 'done', reply: 'all done' } },
    ]);
    const written = await waitFor(
      'the reply in the owner inbox',
      async () => (await refs(`reply:${item}`))[0],
      {
        timeoutMs: 20_000,
      },
    );
    expect(written).toMatchObject({ kind: 'reply', sender: expect.objectContaining({ host: 'bravo' }) });
    const closed = await waitFor('the owner item closed', async () =>
      (await items()).find((i) => i.id === item && i.closed_ms !== null),
    );
    expect(closed).toMatchObject({ close_reason: 'done', reply: 'all done' });
    await waitFor('the child outbox empty', async () => (await outbox()).length === 0);
    await waitFor('the stream empty (each acknowledged)', async () => (await streamState()).messages === 0);
    expect(await refs(`reply:${item}`)).toHaveLength(1);
  });

  it('the server restarted under load loses none and doubles none', async () => {
    const item = newId('i');
    const batch = (from: number) =>
      Array.from({ length: 20 }, (_, i) => message(`blocked:${item}:${from + i}`, `record ${from + i}`));
    await post(item, batch(0));
    // Some are posted, some taken, some on their way when the server goes.
    await waitFor('the first records taken', async () => (await refs(`blocked:${item}:`)).length > 0);
    await nats.stop();
    await post(item, batch(20));
    await nats.resume();
    const all = await waitFor(
      'all 40 records in the owner inbox',
      async () => {
        const got = await refs(`blocked:${item}:`);
        return got.length >= 40 ? got : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(all.map((r) => r.ref).sort()).toEqual(
      Array.from({ length: 40 }, (_, i) => `blocked:${item}:${i}`).sort(),
    );
    await waitFor('the child outbox empty', async () => (await outbox()).length === 0);
    // Acknowledgements the restart lost come again, and are written once and acknowledged.
    await waitFor('the stream empty', async () => (await streamState()).messages === 0, {
      timeoutMs: 20_000,
    });
    expect(await refs(`blocked:${item}:`)).toHaveLength(40);
  });

  it('the owner killed between its write and its ack: the record comes again and is written once', async () => {
    const item = newId('i');
    await stopBusService(alpha);
    restartBusHost(alpha, { DOGSLED_TEST_OUTBOX_CRASH: 'after-write' });
    await post(item, message(`reply:${item}`, 'once only'));
    const crashed = await exited(alpha.serve);
    expect(crashed.signal).toBe('SIGKILL');
    // Written before the crash, not acknowledged: the stream still holds it.
    expect(await refs(`reply:${item}`)).toHaveLength(1);
    expect((await streamState()).messages).toBe(1);
    restartBusHost(alpha);
    await waitFor(
      'the record acknowledged once written again',
      async () => (await streamState()).messages === 0,
      {
        timeoutMs: 20_000,
      },
    );
    expect(await refs(`reply:${item}`)).toHaveLength(1);
  });

  it("the child's host killed between its post and its own ack: posted again, stored once", async () => {
    const item = newId('i');
    const before = (await streamState()).last_seq;
    await stopBusService(bravo);
    restartBusHost(bravo, { DOGSLED_TEST_OUTBOX_CRASH: 'after-post' });
    await post(item, message(`reply:${item}`, 'posted twice'));
    const crashed = await exited(bravo.serve);
    expect(crashed.signal).toBe('SIGKILL');
    // Still in its outbox (never acked there), and in the stream once.
    expect((await outbox()).map((r) => r.ref)).toEqual([`reply:${item}`]);
    restartBusHost(bravo);
    await waitFor('the child outbox empty once its lease ended', async () => (await outbox()).length === 0, {
      timeoutMs: 20_000,
    });
    await waitFor('in the owner inbox', async () => (await refs(`reply:${item}`)).length === 1);
    // Posted twice under one id: the stream stored it once.
    expect((await streamState()).last_seq).toBe(before + 1);
    expect(await refs(`reply:${item}`)).toHaveLength(1);
  });

  it('a hostile message in the stream is dropped with one warning; the records behind it arrive', async () => {
    const item = newId('i');
    const nc = await connect({
      servers: nats.url,
      authenticator: credsAuthenticator(new TextEncoder().encode(credsText(users.bravo))),
      inboxPrefix: '_INBOX_bravo',
    });
    try {
      const js = (await jetstreamManager(nc, { checkAPI: false })).jetstream();
      await js.publish('dogsled.outbox.alpha.bravo', '\u001b]0;pwned\u0007{');
      await js.publish(
        'dogsled.outbox.alpha.bravo',
        JSON.stringify({ id: 'o_x', owner_host: 'h_aaaaaaaaaaaa' }),
      );
      // A host may post only as itself.
      await expect(js.publish('dogsled.outbox.alpha.charlie', '{}')).rejects.toThrow(/Permissions Violation/);
    } finally {
      await nc.close();
    }
    await post(item, message(`reply:${item}`, 'behind the bad ones'));
    await waitFor(
      'the good record in the owner inbox',
      async () => (await refs(`reply:${item}`)).length === 1,
      {
        timeoutMs: 20_000,
      },
    );
    const log = alpha.serve.output();
    expect(log).toContain(
      'dogsled: warning: bus host bravo: a record that is not JSON in the outbox stream, dropped',
    );
    expect(log).toContain(
      'dogsled: warning: bus host bravo: a record that is not a dogsled record in the outbox stream, dropped',
    );
    expect(log).not.toContain('pwned');
    await waitFor('the stream empty', async () => (await streamState()).messages === 0);
  });
});
