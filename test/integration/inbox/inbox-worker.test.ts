// The service's inbox worker on real files and the fake Herdr: expired leases are offered again, a
// gone terminal's records fail back to their senders (once), ticket notices reach the owner's inbox
// as admission records (once), and a real `serve` runs the worker beside its other lanes.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InboxWorker, TERMINAL_GONE } from '../../../service/daemon/inbox-worker.js';
import { statePaths } from '../../../service/state/paths.js';
import { exited, startCli } from '../../helpers/cli.js';
import { type InboxBox, inboxPair, type PaneRef, registerClaude } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';
import { appendTickets, ticketFixture, tickets } from '../jobs/job-queue-fixtures.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

beforeEach(async () => {
  ({ t, lead, child } = await inboxPair());
});

afterEach(async () => {
  await t.close();
});

function worker(now: () => number, env: NodeJS.ProcessEnv = t.envOf(lead)): InboxWorker {
  return new InboxWorker({
    paths: statePaths(t.box.state),
    now,
    warn: (line) => {
      throw new Error(`unexpected warning: ${line}`);
    },
    env,
    home: t.box.home,
  });
}

const T0 = 1_800_000_000_000;
const clock = (ms: number) => ({ DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(ms) });

describe('the inbox worker', () => {
  it('offers a record again as pending once its lease ended, and leaves a live lease alone', async () => {
    await registerClaude(t, child);
    await t.cli(lead, ['send', child.pane, '--message', 'lease me'], { extra: clock(T0) });
    const claim = await t.cli(child, ['inbox', 'claim', '--harness', 'claude'], { extra: clock(T0) });
    expect(JSON.parse(claim.stdout).records).toHaveLength(1);
    expect((await worker(() => T0 + 7_000).pass()).reoffered).toBe(0);
    expect((await t.inbox(child)).records[0]).toMatchObject({ state: 'claimed', attempts: 1 });
    expect((await worker(() => T0 + 13_000).pass()).reoffered).toBe(1);
    expect((await t.inbox(child)).records[0]).toMatchObject({
      state: 'pending',
      attempts: 1,
      lease_until_ms: null,
    });
  });

  it('fails the records of a gone terminal back to their senders, once', async () => {
    await registerClaude(t, child);
    await registerClaude(t, lead);
    await t.cli(lead, ['send', child.pane, '--message', 'you will never read this']);
    const { workspace_id } = (await t.herdr.call('pane.get', { pane_id: child.pane })).result.pane;
    expect((await t.herdr.call('workspace.close', { workspace_id })).error).toBeUndefined();
    const pass = await worker(Date.now).pass();
    expect(pass.failed.map((r) => [r.state, r.reason])).toEqual([['failed', TERMINAL_GONE]]);
    const notice = (await t.inbox(lead)).records;
    expect(notice).toEqual([
      expect.objectContaining({
        kind: 'undelivered',
        sender: { pane: null, terminal: null, host: 'local', name: null },
        state: 'pending',
      }),
    ]);
    expect(notice[0].text).toMatch(
      new RegExp(
        `^Your message m_\\w+ to ${child.pane} was not delivered: its terminal is gone\\. It said: you will`,
      ),
    );
    expect((await worker(Date.now).pass()).failed).toEqual([]);
    expect((await t.inbox(lead)).records).toHaveLength(1);
  });

  it('drops a gone terminal inbox once nothing in it is worth keeping', async () => {
    await registerClaude(t, child);
    const { workspace_id } = (await t.herdr.call('pane.get', { pane_id: child.pane })).result.pane;
    await t.herdr.call('workspace.close', { workspace_id });
    await worker(Date.now).pass();
    expect(await t.inbox(child)).toBeUndefined();
  });

  it('posts each pending ticket notice to the owner inbox as an admission record, once', async () => {
    await appendTickets(t.box, [
      ticketFixture({
        id: 't_admitted',
        owner: lead.pane,
        state: 'admitted',
        host: 'local',
        job: 'j_1',
        notice: 'pending',
      }),
      ticketFixture({
        id: 't_failed',
        owner: lead.pane,
        state: 'failed',
        error: 'launch failed: boom',
        notice: 'pending',
      }),
      ticketFixture({ id: 't_waited', owner: lead.pane, state: 'admitted', notice: null }),
      ticketFixture({ id: 't_stranger', owner: 'w99:p9', state: 'admitted', notice: 'pending' }),
      ticketFixture({ id: 't_pending', owner: lead.pane }),
    ]);
    const pass = await worker(Date.now).pass();
    expect(pass.notices.map((r) => r.ref)).toEqual(['ticket:t_admitted:admitted', 'ticket:t_failed:failed']);
    const records = (await t.inbox(lead)).records;
    expect(records.map((r: { kind: string; text: string }) => [r.kind, r.text])).toEqual([
      ['admission', 'Ticket t_admitted (job true) was admitted on local as j_1.'],
      ['admission', 'Ticket t_failed (job true) failed: launch failed: boom. Nothing was started elsewhere.'],
    ]);
    const notices = Object.fromEntries((await tickets(t.box)).map((ticket) => [ticket.id, ticket.notice]));
    expect(notices).toEqual({
      t_admitted: 'delivered',
      t_failed: 'delivered',
      t_waited: null,
      t_stranger: 'pending',
      t_pending: null,
    });
    await worker(Date.now).pass();
    expect((await t.inbox(lead)).records).toHaveLength(2);
  });

  it('without Herdr still offers expired leases again and fails nothing', async () => {
    await registerClaude(t, child);
    await t.cli(lead, ['send', child.pane, '--message', 'x'], { extra: clock(T0) });
    await t.cli(child, ['inbox', 'claim'], { extra: clock(T0) });
    const headless = { ...t.box.env, PATH: '/usr/bin:/bin' };
    const pass = await worker(() => T0 + 20_000, headless).pass();
    expect(pass).toMatchObject({ reoffered: 1, failed: [] });
  });

  it('runs inside serve and delivers a notice there', async () => {
    const serve = startCli(['serve', '--interval', '0.5'], t.envOf(lead));
    try {
      await appendTickets(t.box, [
        ticketFixture({
          id: 't_served',
          owner: lead.pane,
          state: 'admitted',
          host: 'local',
          notice: 'pending',
        }),
      ]);
      const record = await waitFor('the notice', async () => (await t.inbox(lead))?.records[0], {
        timeoutMs: 15_000,
      });
      expect(record).toMatchObject({ kind: 'admission', ref: 'ticket:t_served:admitted' });
    } finally {
      serve.kill('SIGTERM');
      await exited(serve);
    }
  });
});
