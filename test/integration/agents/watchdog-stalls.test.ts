// Stall notifications through the fake Herdr (one per stall episode of a top-level pane, recorded
// before it is sent, never for a tracked child) and the watchdog's hostile files: watchdog.json as
// a directory, a FIFO or corrupt; parents.json corrupt; a FIFO where a job log belongs.

import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statePaths } from '../../../service/state/paths.js';
import { linkChild } from '../../../service/state/records/parents.js';
import { type InboxBox, inboxPair, type PaneRef, registerClaude } from '../../helpers/inbox-fixture.js';
import {
  agentPane,
  checkIns,
  childItem,
  MIN,
  T0,
  watchdog,
  watchdogFile,
  writeEndedJob,
  writeItems,
  writePanes,
} from './watchdog-fixtures.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

beforeEach(async () => {
  ({ t, lead, child } = await inboxPair());
});

afterEach(async () => {
  await t.close();
});

async function notifications(): Promise<Array<{ title: string; body: string }>> {
  return (await t.herdr.call('_fake.notifications.list')).result.notifications;
}

describe('stall notifications', () => {
  it('notify a stalled top-level pane once per stall episode, never a tracked child, across restarts', async () => {
    await writeItems(t, [childItem(lead, child)]);
    const stalled = (since: number) => [
      agentPane(lead, { state: 'working', name: 'lead \u001b[31mx', stalled_since_ms: since }),
      agentPane(child, { state: 'working', stalled_since_ms: since }),
    ];
    await writePanes(t, stalled(T0));
    expect((await watchdog(t, () => T0 + MIN).pass()).notified).toEqual([lead.pane]);
    expect((await watchdogFile(t)).notified).toEqual({ [lead.terminal]: T0 });
    expect((await watchdog(t, () => T0 + 2 * MIN).pass()).notified).toEqual([]);
    const sent = await notifications();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.title).toBe('dogsled: lead x stalled');
    // Recovered, then stalled again: a new episode, one more notification.
    await writePanes(t, [agentPane(lead, { state: 'working' }), agentPane(child, { state: 'working' })]);
    await watchdog(t, () => T0 + 3 * MIN).pass();
    expect((await watchdogFile(t)).notified).toEqual({});
    await writePanes(t, stalled(T0 + 20 * MIN));
    expect((await watchdog(t, () => T0 + 21 * MIN).pass()).notified).toEqual([lead.pane]);
    expect(await notifications()).toHaveLength(2);
  });

  it('record the episode before sending: a failed send is not repeated within that stall', async () => {
    await writePanes(t, [agentPane(lead, { state: 'working', stalled_since_ms: T0 })]);
    await t.herdr.call('_fake.fail_next', { method: 'notification.show', code: 'internal_error' });
    const warnings: string[] = [];
    expect((await watchdog(t, () => T0 + MIN, { warnings }).pass()).notified).toEqual([]);
    expect(warnings.join('\n')).toMatch(/^dogsled serve: watchdog: notification for \S+: /);
    expect((await watchdogFile(t)).notified).toEqual({ [lead.terminal]: T0 });
    expect((await watchdog(t, () => T0 + 2 * MIN).pass()).notified).toEqual([]);
  });

  it('treat a child named in parents.json as tracked, not top-level', async () => {
    await writePanes(t, [agentPane(child, { state: 'working', stalled_since_ms: T0 })]);
    const parents = { version: 1, children: { [child.terminal]: { owner: 'w9:p9', owner_host: 'netcup' } } };
    await writeFile(join(t.box.state, 'parents.json'), JSON.stringify(parents));
    expect((await watchdog(t, () => T0 + MIN).pass()).notified).toEqual([]);
    expect(await notifications()).toEqual([]);
  });
});

describe('a stalled child whose owner is on another host', () => {
  const OWNER_HOST = 'h_abcdefghijkl';

  async function remoteChild(): Promise<void> {
    await writeItems(t, [
      childItem(lead, child, {
        id: 'i_far',
        owner: null,
        owner_host: OWNER_HOST,
        owner_pane: 'w9:p9',
        name: 'far\u001b[31m',
      }),
    ]);
    await linkChild({ paths: statePaths(t.box.state), now: () => T0, warn: () => {} }, child.terminal, {
      owner: 'w9:p9',
      owner_host: OWNER_HOST,
      item: 'i_far',
      pane: child.pane,
      linked_ms: T0,
    });
  }

  async function outbox(): Promise<
    Array<{
      owner_host: string;
      ref: string;
      message?: { owner_pane: string; record: { kind: string; text: string } };
    }>
  > {
    const text = await readFile(join(t.box.state, 'outbox.json'), 'utf8').catch(() => null);
    return text === null ? [] : JSON.parse(text).records;
  }

  it('reaches its owner through the outbox once per stall episode, and gets no notification here', async () => {
    await remoteChild();
    await writePanes(t, [agentPane(child, { state: 'working', name: 'far', stalled_since_ms: T0 })]);
    let now = T0 + MIN;
    const worker = watchdog(t, () => now);
    const first = await worker.pass();
    expect(first.forwarded).toEqual([`stall:i_far:${T0}`]);
    expect(first.notified).toEqual([]);
    expect(first.checkIns).toEqual([]);
    const [record] = await outbox();
    expect(record).toMatchObject({
      owner_host: OWNER_HOST,
      ref: `stall:i_far:${T0}`,
      message: { owner_pane: 'w9:p9', record: { kind: 'check_in' } },
    });
    const text = record?.message?.record.text ?? '';
    expect(text).toMatch(/^dogsled check-in \(a child stalled\)\./);
    expect(text).toContain(`far (${child.pane}) on ${hostname()}: working`);
    expect(text).toContain('STALLED 60s');
    expect(text).not.toMatch(/\u001b/);
    // The next look and a restarted service add nothing for the same episode.
    now = T0 + 2 * MIN;
    expect((await worker.pass()).forwarded).toEqual([]);
    const restarted = watchdog(t, () => T0 + 3 * MIN);
    expect((await restarted.pass()).forwarded).toEqual([`stall:i_far:${T0}`]);
    expect(await outbox()).toHaveLength(1);
    // A new episode is told again.
    await writePanes(t, [
      agentPane(child, { state: 'working', name: 'far', stalled_since_ms: T0 + 30 * MIN }),
    ]);
    expect((await restarted.pass()).forwarded).toEqual([`stall:i_far:${T0 + 30 * MIN}`]);
    expect(await outbox()).toHaveLength(2);
    expect(await notifications()).toEqual([]);
  });

  it('tells nobody once the child closed, and a link without an owner pane reaches no one', async () => {
    await remoteChild();
    const far = { id: 'i_far', owner: null, owner_host: OWNER_HOST, owner_pane: 'w9:p9' };
    await writeItems(t, [childItem(lead, child, { ...far, closed_ms: T0 })]);
    await writePanes(t, [agentPane(child, { state: 'working', stalled_since_ms: T0 })]);
    expect((await watchdog(t, () => T0 + MIN).pass()).forwarded).toEqual([]);
    await writeItems(t, [childItem(lead, child, far)]);
    const parents = {
      version: 1,
      children: { [child.terminal]: { owner: null, owner_host: OWNER_HOST, item: 'i_far' } },
    };
    await writeFile(join(t.box.state, 'parents.json'), JSON.stringify(parents));
    const pass = await watchdog(t, () => T0 + MIN).pass();
    expect(pass.forwarded).toEqual([]);
    expect(pass.notified).toEqual([]);
    expect(await outbox()).toEqual([]);
  });
});

describe('the watchdog with hostile files', () => {
  it('fails its pass in one line naming watchdog.json when it is a directory or a FIFO, and writes nothing', async () => {
    await writePanes(t, [agentPane(lead, { state: 'working', stalled_since_ms: T0 })]);
    const file = join(t.box.state, 'watchdog.json');
    await mkdir(file);
    await expect(watchdog(t, () => T0).pass()).rejects.toThrow(
      /^watchdog\.json is a directory, not a regular file$/,
    );
    await rm(file, { recursive: true });
    execFileSync('mkfifo', [file]);
    await expect(watchdog(t, () => T0).pass()).rejects.toThrow(
      /^watchdog\.json is a FIFO, not a regular file$/,
    );
    expect(await notifications()).toEqual([]);
  });

  it('moves a corrupt watchdog.json aside with one warning and starts afresh without repeating old jobs', async () => {
    await registerClaude(t, lead);
    await writePanes(t, [agentPane(lead)]);
    await writeEndedJob(t, lead, 'j_before', T0 - MIN, 'x\n');
    await writeFile(join(t.box.state, 'watchdog.json'), '{"version": 1, "owners": [');
    const warnings: string[] = [];
    const pass = await watchdog(t, () => T0, { warnings }).pass();
    expect(warnings).toEqual([
      expect.stringMatching(/watchdog\.json.*moved aside|quarantin|watchdog\.json\.bad-/),
    ]);
    expect(pass.events).toEqual([]);
    expect((await readdir(t.box.state)).filter((name) => name.startsWith('watchdog.json.bad-'))).toHaveLength(
      1,
    );
    expect(await checkIns(t, lead)).toEqual([]);
  });

  it('ignores a FIFO where a job log belongs (the note has no log lines, nothing hangs)', async () => {
    await registerClaude(t, lead);
    await writePanes(t, [agentPane(lead)]);
    await watchdog(t, () => T0).pass();
    await writeEndedJob(t, lead, 'j_fifo', T0 + MIN, '');
    const log = join(t.box.state, 'jobs', 'j_fifo.log');
    await rm(log);
    execFileSync('mkfifo', [log]);
    const pass = await watchdog(t, () => T0 + 2 * MIN).pass();
    expect(pass.checkIns).toHaveLength(1);
    expect(pass.checkIns[0]?.text).not.toContain('last log lines');
  });
});
