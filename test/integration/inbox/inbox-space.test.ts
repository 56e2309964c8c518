// How much an inbox holds, on the built CLI with the fake Herdr and real files: a long text lives in
// its own 0600 body file (the inbox file keeps its first part), settled records leave the live file
// for the settled one, a send that does not fit beside what waits is refused in one line while the
// oldest delivered records make room, a hook reads only what waits (10,000 delivered records cost it
// nothing), and a crash between the settled write and the live write loses and repeats nothing.

import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InboxWorker } from '../../../service/daemon/inbox-worker.js';
import { statePaths } from '../../../service/state/paths.js';
import { spawnCli } from '../../helpers/cli.js';
import { hookJson, type InboxBox, inboxBox, type PaneRef } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

const STOP = ['inbox', '--harness', 'claude', '--event', 'Stop'];
const stop = { hook_event_name: 'Stop', stop_hook_active: false };
const MIB = 1024 * 1024;
const DAY = 24 * 3_600_000;

// One sandbox and fake Herdr for the file, and a new reader pane (its own terminal and inbox) per
// test, registered by the claim action in this process; its inbox files are removed after it.
beforeAll(async () => {
  t = await inboxBox();
  lead = await t.newPane();
});

beforeEach(async () => {
  child = await t.newPane();
  await t.register(child);
});

// The service's inbox pass reads every terminal's files: a test's damaged ones go with it.
afterEach(async () => {
  await rm(t.inboxPath(child), { recursive: true, force: true });
  await rm(dirOf(child), { recursive: true, force: true });
});

afterAll(async () => {
  await t?.close();
});

const dirOf = (pane: PaneRef) => join(t.box.state, 'inbox', `${pane.terminal}.d`);
const bodyOf = (pane: PaneRef, id: string) => join(dirOf(pane), `${id}.txt`);
// biome-ignore lint/suspicious/noExplicitAny: the file as JSON, asserted field by field
async function settled(pane: PaneRef): Promise<any[]> {
  return JSON.parse(await readFile(join(dirOf(pane), 'settled.json'), 'utf8')).records;
}

async function sendFile(text: string, extra: NodeJS.ProcessEnv = {}) {
  const file = join(t.box.root, `message-${Math.random()}.txt`);
  await writeFile(file, text);
  return t.cli(lead, ['send', child.pane, '--message-file', file], { extra });
}

async function sent(text: string, extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const result = await sendFile(text, extra);
  expect(result.stderr).toBe('');
  return result.stdout.split(' ')[1] as string;
}

/**
 * A record that only sets the scene (what waits before the send under test): written by the send
 * action in this process, as `send` writes it, without a CLI start for each.
 */
function placed(text: string): Promise<string> {
  return t.send(lead, child.pane, text);
}

function worker(now: () => number): InboxWorker {
  return new InboxWorker({
    paths: statePaths(t.box.state),
    now,
    warn: (line) => {
      throw new Error(`unexpected warning: ${line}`);
    },
    env: t.envOf(lead),
    home: t.box.home,
  });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** A delivered record as an older dogsled left it in the live file. */
function deliveredRecord(i: number, at: number) {
  return {
    id: `m_old${String(i).padStart(7, '0')}`,
    kind: 'message',
    sender: { pane: lead.pane, terminal: lead.terminal, host: 'local', name: null },
    text: `old message ${i}`,
    created_ms: at,
    state: 'delivered',
    attempts: 1,
    lease_until_ms: null,
    delivered_ms: at,
    failed_ms: null,
    reason: null,
    ref: null,
  };
}

describe('an inbox holds a bounded amount', () => {
  it('keeps a long text in its own 0600 body file, delivers a preview, lists it whole, and removes it with its record', async () => {
    const text = `${'0123456789'.repeat(10_000)}\x1b]0;pwned\x07 end`;
    const id = await sent(text);
    const live = await readFile(t.inboxPath(child), 'utf8');
    expect(live.length).toBeLessThan(6_000);
    const body = bodyOf(child, id);
    expect(await readFile(body, 'utf8')).toBe(text);
    expect((await stat(body)).mode & 0o777).toBe(0o600);
    expect((await stat(dirOf(child))).mode & 0o777).toBe(0o700);

    const reason = hookJson(await t.hook(child, STOP, stop)).reason as string;
    expect(reason).toContain('… 100004 characters in all; read the whole message with: dogsled inbox list');
    expect(reason.length).toBeLessThan(2_500);

    // Settled, moved out of the live file by the service, and still listed whole.
    await worker(Date.now).pass();
    expect((await t.inbox(child)).records).toEqual([]);
    expect((await settled(child)).map((r: { id: string; state: string }) => [r.id, r.state])).toEqual([
      [id, 'delivered'],
    ]);
    const listed = JSON.parse((await t.cli(child, ['inbox', 'list', '--json'])).stdout);
    expect(listed.received.map((r: { text: string }) => r.text)).toEqual([
      `${'0123456789'.repeat(10_000)} end`,
    ]);

    // A day after delivery the record and its body go together.
    await worker(() => Date.now() + DAY + 60_000).pass();
    expect(await settled(child)).toEqual([]);
    expect(await exists(body)).toBe(false);
  });

  it('refuses a send that does not fit beside what waits in one line, and makes room from the oldest delivered', async () => {
    const big = 'x'.repeat(4 * MIB);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await placed(big));
    const refused = await sendFile(big);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `dogsled: send: no room in the inbox of ${child.pane}: 28.0 MiB wait undelivered there and this message needs 4.0 MiB, over the 32.0 MiB an inbox holds; nothing was sent\n`,
    );
    expect((await t.inbox(child)).records).toHaveLength(7);
    expect((await readdir(dirOf(child))).filter((name) => name.endsWith('.txt'))).toHaveLength(7);

    // The reader takes four; the next send moves them out of the live file and evicts the oldest for room.
    expect(hookJson(await t.hook(child, STOP, stop)).reason).toMatch(/^dogsled inbox: 4 new records/);
    const next = await sent(big);
    const live = (await t.inbox(child)).records.map((r: { id: string }) => r.id);
    expect(live).toEqual([...ids.slice(4), next]);
    expect((await settled(child)).map((r: { id: string }) => r.id)).toEqual(ids.slice(1, 4));
    expect(await exists(bodyOf(child, ids[0] as string))).toBe(false);
    for (const id of [...ids.slice(1), next]) expect(await exists(bodyOf(child, id))).toBe(true);
  }, 60_000);

  it('a hook with 10,000 delivered records and one pending delivers that one and reads no history', async () => {
    const now = Date.now();
    const inbox = await t.inbox(child);
    const history = Array.from({ length: 10_000 }, (_, i) => deliveredRecord(i, now - 60_000 + i));
    const long = `${'L'.repeat(100_000)} whole`;
    history[0] = { ...history[0], text: long } as (typeof history)[0];
    await writeFile(t.inboxPath(child), JSON.stringify({ ...inbox, records: history }));
    const id = await sent('the one that waits');
    // The send moved the history out of the live file: what a hook reads is the one record.
    expect((await t.inbox(child)).records.map((r: { id: string }) => r.id)).toEqual([id]);
    const moved = await settled(child);
    expect(moved).toHaveLength(10_000);
    // A long text kept whole in the live file by an older dogsled got its body file on the way out.
    expect(moved[0]).toMatchObject({ id: 'm_old0000000', body: { bytes: long.length, chars: long.length } });
    expect(await readFile(bodyOf(child, 'm_old0000000'), 'utf8')).toBe(long);
    const listed = JSON.parse((await t.cli(child, ['inbox', 'list', '--json'])).stdout);
    expect(listed.received).toHaveLength(10_001);
    expect(listed.received[0].text).toBe(long);

    // The history in a FIFO: a hook that opened it would fail silently or hang.
    await rm(join(dirOf(child), 'settled.json'));
    execFileSync('mkfifo', [join(dirOf(child), 'settled.json')]);
    const result = await t.hook(child, STOP, stop);
    const reason = hookJson(result).reason as string;
    expect(reason).toMatch(/^dogsled inbox: 1 new record/);
    expect(reason).toContain('the one that waits');
    expect((await t.inbox(child)).records).toEqual([expect.objectContaining({ id, state: 'delivered' })]);
  }, 60_000);

  it('refuses a send in one line when the settled file or its directory is not what it should be, and hooks still deliver', async () => {
    const waiting = await placed('waiting before the damage');
    const cases: Array<[string, () => Promise<void>, RegExp]> = [
      [
        'a directory',
        async () => {
          await mkdir(join(dirOf(child), 'settled.json'), { recursive: true });
        },
        /settled\.json is a directory, not a regular file/,
      ],
      [
        'a FIFO',
        async () => {
          await rm(join(dirOf(child), 'settled.json'), { recursive: true });
          execFileSync('mkfifo', [join(dirOf(child), 'settled.json')]);
        },
        /settled\.json is a FIFO, not a regular file/,
      ],
      [
        'a file in place of the directory',
        async () => {
          await rm(dirOf(child), { recursive: true });
          await writeFile(dirOf(child), 'not a directory');
        },
        /settled\.json.*ENOTDIR/,
      ],
    ];
    await mkdir(dirOf(child), { recursive: true });
    for (const [, damage, pattern] of cases) {
      await damage();
      const refused = await sendFile('not stored');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(pattern);
      expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect((await t.inbox(child)).records.map((r: { id: string }) => r.id)).toEqual([waiting]);
    }
    expect(hookJson(await t.hook(child, STOP, stop)).reason).toContain('waiting before the damage');
  });

  it('loses and repeats nothing when a send dies between the settled write and the live write', async () => {
    const first = await placed('delivered before the crash');
    expect(hookJson(await t.hook(child, STOP, stop)).reason).toContain('delivered before the crash');
    const env = t.envOf(lead, {
      DOGSLED_TEST: '1',
      DOGSLED_TEST_LOCK_HOLD_FILE: `${child.terminal}.json`,
      DOGSLED_TEST_LOCK_HOLD_MS: '60000',
    });
    const file = join(t.box.root, 'lost.txt');
    await writeFile(file, `never stored ${'y'.repeat(5_000)}`);
    const crashing = spawnCli(['send', child.pane, '--message-file', file], env);
    await waitFor('the crashing writer to hold the inbox lock', async () =>
      (await exists(`${t.inboxPath(child)}.holding`)) ? true : undefined,
    );
    crashing.child.kill('SIGKILL');
    await crashing.done;

    // The delivered record is in both files now, and nowhere twice; the unsent one is nowhere.
    expect((await t.inbox(child)).records.map((r: { id: string }) => r.id)).toEqual([first]);
    expect((await settled(child)).map((r: { id: string }) => r.id)).toEqual([first]);
    const listed = JSON.parse((await t.cli(child, ['inbox', 'list', '--json'])).stdout);
    expect(listed.received.map((r: { id: string }) => r.id)).toEqual([first]);
    expect(await t.hook(child, STOP, stop)).toMatchObject({ code: 0, stdout: '' });

    // The next send finishes the move; the killed one's body file, which no record names, is swept.
    const orphans = (await readdir(dirOf(child))).filter((name) => name.endsWith('.txt'));
    expect(orphans).toHaveLength(1);
    const second = await sent('after the crash');
    expect((await t.inbox(child)).records.map((r: { id: string }) => r.id)).toEqual([second]);
    expect((await settled(child)).map((r: { id: string }) => r.id)).toEqual([first]);
    await worker(Date.now).pass();
    expect((await readdir(dirOf(child))).filter((name) => name.endsWith('.txt'))).toEqual([]);
  }, 60_000);
});
