// The Pi extension's inbox reader against the fake Pi host, in a pane of the fake Herdr: a batch is
// injected as one message (a new turn when idle, a steer while running), acknowledged only after Pi
// wrote it to the session, offered again when Pi never wrote it, and never carries escapes or a
// megabyte; without HERDR_PANE_ID nothing runs.

import { execFileSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MESSAGE_TYPE } from '../../../plugins/pi/src/message.js';
import { PLAIN_THEME } from '../../fakes/pi-api/fake-pi.js';
import { calls, logLines, type PiRun, startPi } from '../../fakes/pi-api/harness.js';
import { type InboxBox, inboxBox, type PaneRef } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';

// One sandbox and fake Herdr for the file, and a pane of its own (its own inbox) per test: a Pi
// session's start and the box's are most of what a test costs. Each session logs to a file of its own.
let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;
const runs: PiRun[] = [];
let sessions = 0;

beforeAll(async () => {
  t = await inboxBox();
  lead = await t.newPane();
});

beforeEach(async () => {
  child = await t.newPane();
});

afterEach(async () => {
  for (const run of runs.splice(0)) await run.fake.shutdown();
});

afterAll(async () => {
  await t?.close();
});

async function pi(pane: PaneRef | undefined, options: Parameters<typeof startPi>[2] = {}): Promise<PiRun> {
  const run = await startPi(t, pane, { name: `pi-${++sessions}`, ...options });
  runs.push(run);
  return run;
}

/** A record from `lead` to `child`, as `dogsled send` writes it (the action, in this process). */
function send(text: string, kind?: string): Promise<string> {
  return t.send(lead, child.pane, text, kind === undefined ? {} : { kind });
}

async function recordOf(pane: PaneRef, index = 0) {
  return (await t.records(pane))[index];
}

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('the Pi inbox reader', () => {
  it('turns a message to an idle Pi into one new turn, acknowledged after Pi wrote it', async () => {
    const run = await pi(child);
    await send('Also cover the empty case.');
    await waitFor('delivery', async () =>
      (await recordOf(child))?.state === 'delivered' ? true : undefined,
    );
    expect(run.fake.sent).toHaveLength(1);
    expect(run.fake.sent[0]).toMatchObject({
      streaming: false,
      options: { deliverAs: 'steer', triggerTurn: true },
      message: { customType: MESSAGE_TYPE, display: true },
    });
    expect(run.fake.sent[0]?.message.content).toContain('Also cover the empty case.');
    expect(run.fake.turns).toBe(1);
    const lines = await logLines(run);
    const written = lines.findIndex((line) => line.startsWith('written '));
    const ack = lines.findIndex((line) => line.startsWith('call inbox ack'));
    expect(written).toBeGreaterThanOrEqual(0);
    expect(ack).toBeGreaterThan(written);
  });

  it('steers a running agent with the whole batch as one message, and acks only once Pi took it', async () => {
    await t.cli(child, ['inbox', 'claim', '--harness', 'pi']);
    await send('first');
    await send('second', 'task');
    const run = await pi(child, { start: false });
    run.fake.streaming = true;
    await run.fake.startSession();
    await waitFor('the injection', () => (run.fake.sent.length > 0 ? true : undefined));
    expect(run.fake.sent).toHaveLength(1);
    const details = run.fake.sent[0]?.message.details as { records: Array<{ id: string; kind: string }> };
    expect(details.records.map((r) => r.kind)).toEqual(['message', 'task']);
    // A whole CLI run later, Pi still holds the steer unwritten: nothing may be acknowledged yet.
    const listed = JSON.parse((await t.cli(child, ['inbox', 'list', '--json'])).stdout);
    expect(listed.received.map((r: { state: string }) => r.state)).toEqual(['claimed', 'claimed']);
    expect(await calls(run)).not.toContainEqual(expect.stringMatching(/^inbox ack/));
    await run.fake.takeSteering();
    await waitFor('delivery', async () =>
      (await recordOf(child, 1))?.state === 'delivered' ? true : undefined,
    );
    expect((await recordOf(child, 0))?.state).toBe('delivered');
    const lines = await logLines(run);
    expect(lines.findIndex((line) => line.startsWith('call inbox ack'))).toBeGreaterThan(
      lines.findIndex((line) => line.startsWith('written ')),
    );
    expect(run.fake.turns).toBe(0);
  });

  it('offers a batch again when Pi died between the claim and the write, and delivers it exactly once more', async () => {
    const dead = await pi(child, { writes: 'never', name: 'dead' });
    await send('do not lose me');
    await waitFor('the first injection', () => (dead.fake.sent.length > 0 ? true : undefined));
    const claimed = await recordOf(child);
    expect(claimed).toMatchObject({ state: 'claimed', attempts: 1 });
    await dead.fake.shutdown();
    runs.splice(runs.indexOf(dead), 1);
    // The next Pi starts after the lease (at most five minutes) has run out.
    const later = String(Date.now() + 6 * 60_000);
    const next = await pi(child, { name: 'next', env: { DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: later } });
    await waitFor('redelivery', async () =>
      (await recordOf(child))?.state === 'delivered' ? true : undefined,
    );
    expect(await recordOf(child)).toMatchObject({ id: claimed.id, state: 'delivered', attempts: 2 });
    expect(next.fake.sent).toHaveLength(1);
    expect(next.fake.sent[0]?.message.content).toContain('do not lose me');
    expect(dead.fake.entries).toHaveLength(0);
    expect(await calls(dead)).not.toContainEqual(expect.stringMatching(/^inbox ack/));
  });

  it('never injects escape sequences or a megabyte, and folds a long record past twelve lines', async () => {
    const run = await pi(child);
    await send(`\x1b]0;owned\x07\x1b[31mred\x1b[0m \x9b2J\n${'x'.repeat(1_000_000)}`);
    await waitFor('delivery 1', async () =>
      (await recordOf(child))?.state === 'delivered' ? true : undefined,
    );
    const long = Array.from({ length: 30 }, (_, i) => `line ${i} \x1b[2K`).join('\n');
    await send(long);
    await waitFor('delivery 2', async () =>
      (await recordOf(child, 1))?.state === 'delivered' ? true : undefined,
    );
    for (const { message } of run.fake.sent) {
      expect(message.content).not.toMatch(RAW);
      expect(message.content).not.toContain('\x1b');
      expect(message.content.length).toBeLessThan(13_000);
      expect(JSON.stringify(message.details)).not.toMatch(/\\u001b|\\u009b/);
    }
    expect(run.fake.sent[0]?.message.content).toContain('red');
    const render = run.fake.renderers.get(MESSAGE_TYPE);
    const message = { role: 'custom' as const, timestamp: 0, ...run.fake.sent[1]!.message };
    const folded = render?.(message, { expanded: false }, PLAIN_THEME)?.render(40) ?? [];
    expect(folded).toContain('  … 18 more lines (expand to read)');
    expect(folded.every((line) => line.length <= 40 && !RAW.test(line))).toBe(true);
    const open = render?.(message, { expanded: true }, PLAIN_THEME)?.render(40) ?? [];
    expect(open).toContain('  line 29');
    const huge = { role: 'custom' as const, timestamp: 0, ...run.fake.sent[0]!.message };
    for (const expanded of [false, true]) {
      const lines = render?.(huge, { expanded }, PLAIN_THEME)?.render(24) ?? [];
      expect(lines.length).toBeLessThan(20);
      expect(lines.every((line) => line.length <= 24 && !RAW.test(line))).toBe(true);
    }
  });

  it('reports an inbox that became a FIFO or a directory on the status line, without hanging', async () => {
    const run = await pi(child);
    await waitFor('registration', async () =>
      (await t.inbox(child))?.reader?.harness === 'pi' ? true : undefined,
    );
    const path = t.inboxPath(child);
    await rm(path);
    execFileSync('mkfifo', [path]);
    const fifo = await waitFor('a FIFO status', () => run.fake.statuses.get('dogsled'));
    expect(fifo).toMatch(/^inbox: .*FIFO/);
    await rm(path);
    await mkdir(path);
    await waitFor('a directory status', () =>
      /directory/.test(run.fake.statuses.get('dogsled') ?? '') ? true : undefined,
    );
    await rm(path, { recursive: true });
    // Removing it is a change too: the reader registers again, and messages flow.
    await waitFor('re-registration', async () =>
      (await t.inbox(child))?.reader?.harness === 'pi' ? true : undefined,
    );
    await send('back again');
    await waitFor('the message', () => (run.fake.sent.length > 0 ? true : undefined));
  });

  it('starts no process, watch or timer without HERDR_PANE_ID, and says dogsled is unavailable', async () => {
    const run = await pi(undefined);
    await run.fake.emit('before_agent_start', { prompt: 'hi', systemPrompt: '' });
    await run.fake.emit('agent_before_settle', { outcome: 'completed', entries: [], continue: false });
    await run.fake.commands.get('work')?.handler('', run.fake.ctx);
    expect(await calls(run)).toEqual(['--version']);
    expect(run.fake.widgets.get('dogsled')?.[0]).toBe(
      'dogsled unavailable: not in a Herdr pane (no HERDR_PANE_ID)',
    );
    // No reader registered for the terminal Pi runs in: a message to it is refused.
    const sent = await t.cli(lead, ['send', child.pane, '--message', 'anyone?']);
    expect(sent.code).toBe(2);
    expect(sent.stderr).toMatch(/no inbox reader|reader/);
    // The same Pi in its pane registers at once (the control).
    const inPane = await pi(child, { name: 'in-pane' });
    expect(await calls(inPane)).toContain('inbox claim --harness pi');
  });
});
