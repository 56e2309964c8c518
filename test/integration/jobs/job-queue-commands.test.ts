// `cancel`, `items` and the work part of `status`, run as real processes against queue.json and
// items.json written through the state modules.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../service/hosts/view-schemas.js';
import { ItemSchema, TicketSchema } from '../../../service/state/schemas/queue-items-schemas.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { appendItems, appendTickets, itemFixture, ticketFixture, tickets } from './job-queue-fixtures.js';

const NOW = 1_900_000_000_000;
let box: Sandbox;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  box = await sandbox();
  env = { ...box.env, DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW) };
});

afterEach(async () => {
  await box.cleanup();
});

const request = (command: string[]) => ({
  command,
  cwd: '/tmp',
  timeout_ms: null,
  idle_timeout_ms: null,
  caller_workspace: null,
});

describe('cancel', () => {
  it('cancels a pending ticket and prints it in one line', async () => {
    await appendTickets(box, [
      ticketFixture({ id: 't_pending00001', created_ms: NOW - 30_000, request: request(['make', 'test']) }),
    ]);
    const human = await runCli(['cancel', 't_pending00001'], env);
    expect(human.code).toBe(0);
    expect(human.stderr).toBe('');
    expect(human.stdout).toBe('cancelled t_pending00001: make test (owner w1:p1)\n');
    const [after] = await tickets(box);
    expect(after).toMatchObject({ state: 'cancelled', state_ms: NOW, error: 'cancelled', notice: null });
  });

  it('prints the cancelled ticket as JSON with --json', async () => {
    await appendTickets(box, [ticketFixture({ id: 't_pending00002' })]);
    const result = await runCli(['cancel', 't_pending00002', '--json'], env);
    expect(result.code).toBe(0);
    const ticket = TicketSchema.parse(JSON.parse(result.stdout));
    expect(ticket).toMatchObject({ id: 't_pending00002', state: 'cancelled', state_ms: NOW });
  });

  it.each([
    ['admitting', 'ticket t_other000001 is admitting: cancel only cancels pending tickets'],
    ['admitted', 'ticket t_other000001 is admitted: cancel only cancels pending tickets'],
    ['failed', 'ticket t_other000001 is failed: cancel only cancels pending tickets'],
    ['cancelled', 'ticket t_other000001 is cancelled: cancel only cancels pending tickets'],
  ] as const)('refuses a ticket that is %s in one line, exit 2, changing nothing', async (state, message) => {
    await appendTickets(box, [ticketFixture({ id: 't_other000001', state, state_ms: NOW - 1_000 })]);
    const before = await readFile(join(box.state, 'queue.json'), 'utf8');
    const result = await runCli(['cancel', 't_other000001', '--json'], env);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: `dogsled: cancel: ${message}\n` });
    expect(await readFile(join(box.state, 'queue.json'), 'utf8')).toBe(before);
  });

  it('names an unknown ticket in one line, exit 2, with or without a queue', async () => {
    const none = await runCli(['cancel', 'x'], env);
    expect(none).toMatchObject({ code: 2, stdout: '', stderr: 'dogsled: cancel: unknown ticket "x"\n' });
    await appendTickets(box, [ticketFixture({ id: 't_known0000001' })]);
    const other = await runCli(['cancel', 't_nope'], env);
    expect(other).toMatchObject({ code: 2, stderr: 'dogsled: cancel: unknown ticket "t_nope"\n' });
    expect((await tickets(box))[0]?.state).toBe('pending');
  });
});

describe('items', () => {
  beforeEach(async () => {
    await appendItems(box, [
      itemFixture({ id: 'i_mine00000001', owner: 'w1:p1', job: 'j_a', created_ms: NOW - 60_000 }),
      itemFixture({ id: 'i_theirs000001', owner: 'w2:p5', job: 'j_b', created_ms: NOW - 5_000 }),
      itemFixture({
        id: 'i_mine00000002',
        owner: 'w1:p1',
        job: 'j_c',
        created_ms: NOW - 90_000,
        closed_ms: NOW - 30_000,
        close_reason: 'job ended (exit 3)',
      }),
    ]);
    await appendTickets(box, [
      ticketFixture({ id: 't_mine00000001', owner: 'w1:p1', created_ms: NOW - 10_000 }),
      ticketFixture({ id: 't_nobody000001', owner: null, created_ms: NOW - 9_000 }),
    ]);
  });

  it('returns every item and ticket as {items,queue}', async () => {
    const result = await runCli(['items', '--json'], env);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(Object.keys(doc)).toEqual(['items', 'queue']);
    expect(doc.items.map((i: unknown) => ItemSchema.parse(i).id)).toEqual([
      'i_mine00000001',
      'i_theirs000001',
      'i_mine00000002',
    ]);
    expect(doc.queue.map((t: unknown) => TicketSchema.parse(t).id)).toEqual([
      't_mine00000001',
      't_nobody000001',
    ]);
  });

  it('filters both collections by --owner', async () => {
    const mine = JSON.parse((await runCli(['items', '--owner', 'w1:p1', '--json'], env)).stdout);
    expect(mine.items.map((i: { id: string }) => i.id)).toEqual(['i_mine00000001', 'i_mine00000002']);
    expect(mine.queue.map((t: { id: string }) => t.id)).toEqual(['t_mine00000001']);
    const theirs = JSON.parse((await runCli(['items', '--owner', 'w2:p5', '--json'], env)).stdout);
    expect(theirs).toMatchObject({ items: [{ id: 'i_theirs000001' }], queue: [] });
    expect(JSON.parse((await runCli(['items', '--owner', 'w9:p9', '--json'], env)).stdout)).toEqual({
      items: [],
      queue: [],
    });
  });

  it('refuses an empty --owner (an unset $HERDR_PANE_ID) in one line instead of listing nothing', async () => {
    for (const args of [
      ['items', '--owner', ''],
      ['items', '--owner=', '--json'],
    ]) {
      expect(await runCli(args, env)).toMatchObject({
        code: 2,
        stdout: '',
        stderr: 'dogsled: items: --owner is empty: name a pane (outside Herdr and tmux, leave --owner out)\n',
      });
    }
  });

  it('prints a short list for people', async () => {
    const result = await runCli(['items', '--owner', 'w1:p1'], env);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      'items: 1 open, 1 closed',
      '  i_mine00000001  w1:p1  job j_a  true  open 60s',
      '  i_mine00000002  w1:p1  job j_c  true  closed 30s ago: job ended (exit 3)',
      'queue: 1 pending, 0 other',
      '  t_mine00000001 pending  true  queued 10s  w1:p1',
      '',
    ]);
  });

  it('names a child by its name and harness, a placement by its reservation, an agent ticket by its child', async () => {
    const child = {
      launch: 'l_launch000001',
      kind: 'pi',
      name: 'api-dups',
      profile: 'general',
      branch: null,
      base: null,
      cwd: '/tmp',
      caller_workspace: null,
    } as const;
    await appendItems(box, [
      itemFixture({
        id: 'i_child0000001',
        owner: 'w3:p1',
        kind: 'agent',
        name: 'api-dups\u001b[31m',
        harness: 'pi',
        command: undefined,
        created_ms: NOW - 6_000,
      }),
    ]);
    await appendTickets(box, [
      ticketFixture({
        id: 't_place0000001',
        kind: 'place',
        request: null,
        owner: 'w3:p1',
        state: 'admitted',
        host: 'local',
        reservation: 'r_room00000001',
      }),
      ticketFixture({
        id: 't_agent0000001',
        kind: 'agent',
        request: null,
        agent: child,
        owner: 'w3:p1',
        created_ms: NOW - 3_000,
      }),
      ticketFixture({
        id: 't_agent0000002',
        kind: 'agent',
        request: null,
        agent: { ...child, name: 'reviewer', kind: 'codex' },
        owner: 'w3:p1',
        created_ms: NOW - 2_000,
        state: 'admitted',
        host: 'local',
        item: 'i_child0000002',
      }),
    ]);
    const result = await runCli(['items', '--owner', 'w3:p1'], env);
    expect(result.stdout.split('\n')).toEqual([
      'items: 1 open, 0 closed',
      '  i_child0000001  w3:p1  agent i_child0000001  api-dups (pi)  open 6s',
      'queue: 1 pending, 2 other',
      '  t_place0000001 admitted  placement  reservation r_room00000001 on local  w3:p1',
      '  t_agent0000001 pending  api-dups (pi)  queued 3s  w3:p1',
      '  t_agent0000002 admitted  reviewer (codex)  item i_child0000002 on local  w3:p1',
      '',
    ]);
  });

  it('says there is nothing when the files do not exist', async () => {
    const empty = await sandbox();
    try {
      const e = { ...empty.env, DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW) };
      expect(JSON.parse((await runCli(['items', '--json'], e)).stdout)).toEqual({ items: [], queue: [] });
      expect((await runCli(['items'], e)).stdout).toBe(
        'items: 0 open, 0 closed\nqueue: 0 pending, 0 other\n',
      );
    } finally {
      await empty.cleanup();
    }
  });
});

describe('status with items and tickets', () => {
  beforeEach(async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 2_000, cores: 8, busy: 0.25 }));
    await appendItems(box, [
      itemFixture({
        id: 'i_a',
        owner: 'w1:p1',
        job: 'j_aaaaaaaaaaaa',
        created_ms: NOW - 120_000,
        command: ['make', 'test'],
      }),
      itemFixture({ id: 'i_b', owner: 'w2:p5', job: 'j_bbbbbbbbbbbb', created_ms: NOW - 60_000 }),
      itemFixture({
        id: 'i_c',
        owner: 'w1:p1',
        job: 'j_cccccccccccc',
        created_ms: NOW - 30_000,
        command: ['sleep', '60'],
      }),
      itemFixture({
        id: 'i_d',
        owner: 'w1:p1',
        job: 'j_d',
        closed_ms: NOW - 1_000,
        close_reason: 'pane gone',
      }),
    ]);
    await appendTickets(box, [
      ticketFixture({ id: 't_late00000001', owner: 'w2:p5', created_ms: NOW - 5_000 }),
      ticketFixture({
        id: 't_early0000001',
        owner: 'w1:p1',
        created_ms: NOW - 8_000,
        request: request(['cargo', 'test']),
      }),
      ticketFixture({ id: 't_done00000001', state: 'admitted', created_ms: NOW - 9_000 }),
    ]);
  });

  it('lists open items and pending tickets (FIFO) in --json, valid against the schema', async () => {
    const report = StatusReportSchema.parse(JSON.parse((await runCli(['status', '--json'], env)).stdout));
    expect(report.items.map((i) => i.id)).toEqual(['i_a', 'i_b', 'i_c']);
    expect(report.queue.map((t) => t.id)).toEqual(['t_early0000001', 't_late00000001']);
  });

  it('groups open items per owner for people, then the pending tickets, within 80 columns', async () => {
    const result = await runCli(['status'], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const start = lines.findIndex((l) => l.startsWith('work'));
    expect(lines.slice(start)).toEqual([
      'work  ·  3 open items of 2 owners · 2 pending tickets',
      '  owner     w1:p1',
      '              job j_aaaaaaaaaaaa  make test  open 2m',
      '              job j_cccccccccccc  sleep 60  open 30s',
      '  owner     w2:p5',
      '              job j_bbbbbbbbbbbb  true  open 60s',
      '  pending   t_early0000001  cargo test  queued 8s  w1:p1',
      '  pending   t_late00000001  true  queued 5s  w2:p5',
      '',
    ]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('counts them in --brief, and --line leaves them out', async () => {
    const brief = (await runCli(['status', '--brief'], env)).stdout.trimEnd().split('\n');
    expect(brief.at(-1)).toBe('3 open items · 2 pending tickets · details: dogsled status');
    expect(brief.length).toBeLessThanOrEqual(6);
    expect((await runCli(['status', '--line'], env)).stdout).toBe('local 2/8 ?\n');
  });

  it('never reads items.json or queue.json for --line: a corrupt one is left alone, unmentioned', async () => {
    await writeFile(join(box.state, 'items.json'), '{oops');
    const line = await runCli(['status', '--line'], env);
    expect(line).toMatchObject({ code: 0, stderr: '' });
    expect(await readFile(join(box.state, 'items.json'), 'utf8')).toBe('{oops');
    // Every other form reads it: the corrupt file is moved aside with one warning, and its open
    // items come back from the last good generation (items.json.prev).
    const json = await runCli(['status', '--json'], env);
    expect(json.stderr).toMatch(
      /^dogsled: warning: items\.json was corrupt .*; recovered from items\.json\.prev\n$/,
    );
    expect(StatusReportSchema.parse(JSON.parse(json.stdout)).items.map((i) => i.id)).toEqual([
      'i_a',
      'i_b',
      'i_c',
    ]);
  });

  it('says so when there is no work, and --brief adds no counts', async () => {
    const empty = await sandbox();
    try {
      const e = { ...empty.env, DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW) };
      const report = StatusReportSchema.parse(JSON.parse((await runCli(['status', '--json'], e)).stdout));
      expect(report).toMatchObject({ items: [], queue: [] });
      expect((await runCli(['status'], e)).stdout).toContain('work  ·  no open items · 0 pending tickets\n');
      expect((await runCli(['status', '--brief'], e)).stdout.trimEnd().split('\n').at(-1)).toBe(
        'details: dogsled status',
      );
    } finally {
      await empty.cleanup();
    }
  });
});
