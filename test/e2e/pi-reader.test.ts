// End to end: the BUILT Pi extension in a Pi process of its own (the fake Pi host) in a pane of the
// fake Herdr. `dogsled send` reaches it with nobody typing a prompt, and a Pi killed with SIGKILL
// between claim and write gets the record again in the next Pi once the lease has ended.

import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiHost, startPiHost } from '../fakes/pi-api/host-build.js';
import { CLI } from '../helpers/cli.js';
import { type InboxBox, inboxPair, type PaneRef } from '../helpers/inbox-fixture.js';
import { waitFor } from '../helpers/wait.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;
let host: string;

beforeEach(async () => {
  ({ t, lead, child } = await inboxPair());
  host = await buildPiHost(t.box.root);
});

afterEach(async () => {
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: log lines are asserted field by field
async function events(log: string): Promise<any[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

async function ready(log: string): Promise<void> {
  await waitFor(
    'Pi ready',
    async () => ((await events(log)).some((e) => e.kind === 'ready') ? true : undefined),
    { timeoutMs: 20_000 },
  );
}

describe('a Pi reader end to end', () => {
  it('receives a message from dogsled send without a prompt, as a new turn, and acknowledges it', async () => {
    const log = join(t.box.root, 'pi.jsonl');
    const live = startPiHost(host, log, t.envOf(child, { DOGSLED_BIN: CLI }));
    try {
      await ready(log);
      await waitFor('registration', async () =>
        (await t.inbox(child))?.reader?.harness === 'pi' ? true : undefined,
      );
      const sent = await t.cli(lead, ['send', child.pane, '--message', 'Also cover the empty case.']);
      expect(sent).toMatchObject({ code: 0 });
      const entry = await waitFor('the message in the session', async () =>
        (await events(log)).find((e) => e.kind === 'entry' && e.entry.customType === 'dogsled'),
      );
      expect(entry.entry.content).toContain('Also cover the empty case.');
      expect(entry.turns).toBe(1);
      await waitFor('ack', async () =>
        (await t.inbox(child))?.records?.[0]?.state === 'delivered' ? true : undefined,
      );
    } finally {
      live.kill('SIGKILL');
    }
  });

  it('offers the record again to the next Pi when the first was killed between claim and write', async () => {
    const first = join(t.box.root, 'first.jsonl');
    const dying = startPiHost(host, first, t.envOf(child, { DOGSLED_BIN: CLI, FAKE_PI_WRITES: 'never' }));
    await ready(first);
    await t.cli(lead, ['send', child.pane, '--message', 'survive a crash']);
    await waitFor('injection', async () =>
      (await events(first)).some((e) => e.kind === 'sent') ? true : undefined,
    );
    dying.kill('SIGKILL');
    await once(dying, 'exit');
    expect((await t.inbox(child))?.records?.[0]).toMatchObject({ state: 'claimed', attempts: 1 });
    const second = join(t.box.root, 'second.jsonl');
    const later = String(Date.now() + 6 * 60_000);
    const next = startPiHost(
      host,
      second,
      t.envOf(child, { DOGSLED_BIN: CLI, DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: later }),
    );
    try {
      await waitFor(
        'redelivery',
        async () => ((await t.inbox(child))?.records?.[0]?.state === 'delivered' ? true : undefined),
        { timeoutMs: 20_000 },
      );
      expect((await t.inbox(child))?.records?.[0]).toMatchObject({ attempts: 2 });
      const entries = (await events(second)).filter((e) => e.kind === 'entry');
      expect(entries).toHaveLength(1);
      expect(entries[0].entry.content).toContain('survive a crash');
    } finally {
      next.kill('SIGKILL');
    }
  });
});
