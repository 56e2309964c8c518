// `inbox list`, `inbox claim` and `inbox ack` from a pane: list shows what the terminal received
// (whole, escape-free) and what it sent; claim registers the reader and leases a bounded batch; ack
// is all or nothing.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { runCli } from '../../helpers/cli.js';
import { type InboxBox, inboxBox, type PaneRef } from '../../helpers/inbox-fixture.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

// One sandbox and fake Herdr for the file; each test gets a sender and a reader pane of its own
// (their own terminals, so what one lists is its own), the reader registered and the records the
// commands read written by the actions in this process: the inbox commands are what runs as the CLI.
beforeAll(async () => {
  t = await inboxBox();
});

beforeEach(async () => {
  lead = await t.newPane();
  child = await t.newPane();
  await t.register(child);
});

afterAll(async () => {
  await t?.close();
});

const Sender = z.object({
  pane: z.nullable(z.string()),
  terminal: z.nullable(z.string()),
  host: z.string(),
  name: z.nullable(z.string()),
});
const Record = z.object({
  id: z.string(),
  kind: z.string(),
  sender: Sender,
  text: z.string(),
  created_ms: z.int(),
  state: z.enum(['pending', 'claimed', 'delivered', 'failed']),
  attempts: z.int(),
  lease_until_ms: z.nullable(z.int()),
  delivered_ms: z.nullable(z.int()),
  failed_ms: z.nullable(z.int()),
  reason: z.nullable(z.string()),
});
const ListSchema = z.strictObject({
  pane: z.string(),
  terminal: z.string(),
  received: z.array(Record),
  sent: z.array(z.extend(Record, { to: z.object({ terminal: z.string(), pane: z.nullable(z.string()) }) })),
  lines: z.array(z.string()),
});

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('inbox list', () => {
  it('gives {pane,terminal,received,sent,lines}: received whole and escape-free, lines folded', async () => {
    await t.send(
      lead,
      child.pane,
      `${Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n')}\n${'x'.repeat(1_000_000)}`,
    );
    await t.send(lead, child.pane, '\x1b]0;t\x07do \x1b[1mthis\x1b[0m', { kind: 'task' });
    const result = await t.cli(child, ['inbox', 'list', '--json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const listing = ListSchema.parse(JSON.parse(result.stdout));
    expect(listing).toMatchObject({ pane: child.pane, terminal: child.terminal, sent: [] });
    expect(listing.received.map((r) => r.kind)).toEqual(['message', 'task']);
    expect(listing.received[0]?.text.length).toBeGreaterThan(1_000_000);
    expect(listing.received[1]?.text).toBe('do this');
    expect(listing.lines.filter((line) => line.startsWith('m_'))).toHaveLength(2);
    expect(listing.lines).toContain('  … 19 more lines');
    expect(listing.lines.every((line) => line.length <= 240 && !CONTROL.test(line))).toBe(true);

    const sent = ListSchema.parse(JSON.parse((await t.cli(lead, ['inbox', 'list', '--json'])).stdout)).sent;
    expect(sent.map((r) => [r.kind, r.to.pane, r.state])).toEqual([
      ['message', child.pane, 'pending'],
      ['task', child.pane, 'pending'],
    ]);
  });

  it('prints each received text whole for people, and one line per record sent', async () => {
    await t.send(lead, child.pane, 'first line\nsecond line');
    const human = await t.cli(child, ['inbox', 'list']);
    expect(human.stdout).toMatch(
      new RegExp(`^inbox of ${child.pane} \\(${child.terminal}\\): 1 received, 0 sent\\n`),
    );
    expect(human.stdout).toContain('\n    first line\n    second line\n');
    const mine = await t.cli(lead, ['inbox', 'list']);
    expect(mine.stdout).toMatch(
      new RegExp(`message to ${child.pane}, \\d+(ms|s) ago · pending: first line second line\\n$`),
    );
  });

  it('is one line and exit 2 outside a Herdr pane', async () => {
    const result = await runCli(['inbox', 'list'], { ...t.envOf(lead), HERDR_PANE_ID: '' });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      'dogsled: inbox list: not run in a Herdr or tmux pane (neither HERDR_PANE_ID nor TMUX_PANE is set)\n',
    );
  });
});

describe('inbox claim and ack', () => {
  it('claim leases the batch as one message; ack is all or nothing', async () => {
    await t.send(lead, child.pane, 'one');
    await t.send(lead, child.pane, 'two');
    const claim = JSON.parse((await t.cli(child, ['inbox', 'claim', '--harness', 'pi'])).stdout);
    expect(claim).toMatchObject({ terminal: child.terminal, pane: child.pane, left: 0 });
    expect(claim.text).toMatch(/^dogsled inbox: 2 new records/);
    expect(claim.records.map((r: { text: string; state: string }) => [r.text, r.state])).toEqual([
      ['one', 'claimed'],
      ['two', 'claimed'],
    ]);
    expect((await t.inbox(child)).reader.harness).toBe('pi');
    expect(JSON.parse((await t.cli(child, ['inbox', 'claim'])).stdout)).toMatchObject({
      text: null,
      records: [],
    });

    const ids = claim.records.map((r: { id: string }) => r.id);
    const wrong = await t.cli(child, ['inbox', 'ack', ids[0], 'm_nosuchrecord']);
    expect(wrong).toMatchObject({ code: 2, stdout: '' });
    expect(wrong.stderr).toBe(
      'dogsled: inbox ack: no record m_nosuchrecord in this inbox; nothing was acknowledged\n',
    );
    expect((await t.inbox(child)).records.map((r: { state: string }) => r.state)).toEqual([
      'claimed',
      'claimed',
    ]);
    const ack = await t.cli(child, ['inbox', 'ack', ...ids]);
    expect(ack).toMatchObject({ code: 0, stdout: 'acknowledged 2 records\n' });
    expect((await t.cli(child, ['inbox', 'ack', ...ids])).stdout).toBe('acknowledged 0 records\n');
  });

  it('names bad ids and harnesses in one escape-free line', async () => {
    const ack = await t.cli(child, ['inbox', 'ack', 'm_\x1b]0;pwned\x07x']);
    expect(ack).toMatchObject({ code: 2, stdout: '' });
    expect(ack.stderr).toBe('dogsled: inbox ack: no record m_x in this inbox; nothing was acknowledged\n');
    const claim = await t.cli(child, ['inbox', 'claim', '--harness', 'vim\x1b[2J']);
    expect(claim).toMatchObject({ code: 2, stdout: '' });
    expect(claim.stderr).toBe('dogsled: inbox claim: --harness must be claude, codex, pi, got "vim"\n');
    expect((await t.inbox(child)).reader.harness).toBe('claude');
  });

  it('refuses the group alone or an unknown subcommand in one line naming it', async () => {
    for (const [args, line] of [
      [['inbox'], 'dogsled: inbox: which one? list, claim or ack\n'],
      [['inbox', 'x\x1b[2Jy'], 'dogsled: inbox: no subcommand "xy"; which one? list, claim or ack\n'],
      [['hook'], 'dogsled: hook: which one? inbox, context, gate or state\n'],
    ] as const) {
      expect(await t.cli(child, [...args])).toMatchObject({ code: 2, stdout: '', stderr: line });
    }
  });
});
