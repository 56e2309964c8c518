// The lean `send` (cli/hot/send-lean.ts, service/actions/send-glance.ts) answers `send PANE --message
// TEXT` from one Herdr listing and the inbox files checked by hand. Each case runs the CLI from a
// pane of the fake Herdr and, on the same state (restored in between), the full command line itself
// (dist/full.mjs, what main.ts runs when the lean bundle does not answer): stdout, stderr, exit
// status and every state file afterwards must be the same, byte for byte (the random record id
// aside), and DOGSLED_TIMING's marks say whether the lean bundle answered. The cases it must not
// answer (a name, a pane Herdr must resolve, a message file, a file it doubts) fall back.

import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, spawnNode, timingSplit } from '../../helpers/cli.js';
import { lockUnrefreshedFor, stopInLock, stoppedItself } from '../../helpers/frozen-lock.js';
import { type InboxBox, inboxPair, type PaneRef, registerClaude } from '../../helpers/inbox-fixture.js';
import { mkfifo, restoreState, stateFiles, stateTexts } from '../../helpers/state-files.js';

const NOW = 1_900_000_000_000;
const FULL = pathToFileURL(join(ROOT, 'dist', 'full.mjs')).href;

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;
let baseline: Map<string, Buffer>;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Whether the lean bundle answered (its `answered` mark). */
  lean: boolean;
  /** Every file of the state dir afterwards, record ids as `m_ID`. */
  files: Record<string, string>;
}

const ID = /\bm_[a-z2-7]{12}\b/g;
const plain = (text: string) => text.replace(ID, 'm_ID');

function envFor(pane: PaneRef, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return t.envOf(pane, { DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW), ...extra });
}

function started(argv: string[], env: NodeJS.ProcessEnv) {
  const { child, done } = spawnNode(argv, env, { cwd: t.box.home, timeoutMs: 60_000 });
  return { proc: child, done };
}

async function finished(run: { code: number | null; stdout: string; stderr: string }): Promise<Run> {
  const lean = /^timing .* answered$/m.test(run.stderr);
  const { stderr } = timingSplit(run.stderr);
  const files = Object.fromEntries(
    Object.entries(await stateTexts(t.box.state)).map(([name, text]) => [plain(name), plain(text)]),
  );
  return { code: run.code, stdout: plain(run.stdout), stderr: plain(stderr), lean, files };
}

/** The CLI as a user runs it: the lean bundle first. */
async function viaCli(pane: PaneRef, args: string[], extra: NodeJS.ProcessEnv = {}) {
  const env = envFor(pane, { DOGSLED_TIMING: '1', ...extra });
  return finished(await started([CLI, 'send', ...args], env).done);
}

/** The full command line, as main.ts runs it for what the lean bundle does not answer. */
async function viaFull(pane: PaneRef, args: string[], extra: NodeJS.ProcessEnv = {}) {
  // As main.ts runs it: an error that escapes is printed by reportFailure.
  const script = `import(${JSON.stringify(FULL)}).then((m) => m.runFull(JSON.parse(process.argv[1]), undefined).then((c) => { process.exitCode = c; }, async (e) => { process.exitCode = await m.reportFailure(e); }))`;
  return finished(await started(['-e', script, JSON.stringify(['send', ...args])], envFor(pane, extra)).done);
}

/** Both on the same state; returns the CLI's run after checking it matches the full command's. */
async function compare(pane: PaneRef, args: string[], extra: NodeJS.ProcessEnv = {}) {
  const before = await stateFiles(t.box.state);
  const full = await viaFull(pane, args, extra);
  await restoreState(t.box.state, before);
  const lean = await viaCli(pane, args, extra);
  expect({ code: lean.code, stdout: lean.stdout, stderr: lean.stderr }).toEqual({
    code: full.code,
    stdout: full.stdout,
    stderr: full.stderr,
  });
  expect(lean.files).toEqual(full.files);
  return lean;
}

const inboxName = (pane: PaneRef) => `inbox/${pane.terminal}.json`;

function record(id: string, extra: object = {}) {
  return {
    id,
    kind: 'message',
    sender: { pane: null, terminal: null, host: 'local', name: null },
    text: 'earlier',
    created_ms: NOW - 3 * 86_400_000,
    state: 'pending',
    attempts: 0,
    lease_until_ms: null,
    delivered_ms: null,
    failed_ms: null,
    reason: null,
    ref: null,
    ...extra,
  };
}

async function writeInbox(pane: PaneRef, records: object[]) {
  const inbox = JSON.parse(await readFile(join(t.box.state, inboxName(pane)), 'utf8'));
  await writeFile(join(t.box.state, inboxName(pane)), JSON.stringify({ ...inbox, records }, null, 2));
}

beforeAll(async () => {
  ({ t, lead, child } = await inboxPair());
  await registerClaude(t, child);
  baseline = await stateFiles(t.box.state);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

beforeEach(async () => {
  await restoreState(t.box.state, baseline);
});

describe('the lean send answers a pane here as the full command does', () => {
  it('a message and a task, each one record in the inbox, the line printed the same', async () => {
    const run = await compare(lead, [child.pane, '--message', 'please rebase']);
    expect(run).toMatchObject({ code: 0, lean: true, stderr: '' });
    expect(run.stdout).toBe(
      `sent m_ID to ${child.pane}: it is idle, so claude reads m_ID at its next prompt or stop\n`,
    );
    const inbox = JSON.parse(run.files[inboxName(child)] ?? '');
    expect(inbox.records).toMatchObject([
      { kind: 'message', text: 'please rebase', sender: { pane: lead.pane, terminal: lead.terminal } },
    ]);
    const task = await compare(lead, [child.pane, '--kind', 'task', '--message=run the tests']);
    expect(task.lean).toBe(true);
  });

  it('from outside any pane, and to an agent that is working', async () => {
    const outside = await compare(lead, [child.pane, '--message', 'hi'], {
      HERDR_ENV: '',
      HERDR_PANE_ID: '',
    });
    expect(outside.lean).toBe(true);
    expect(JSON.parse(outside.files[inboxName(child)] ?? '').records[0].sender).toEqual({
      pane: null,
      terminal: null,
      host: 'local',
      name: null,
    });
    const reported = await t.herdr.call('pane.report_agent', {
      pane_id: child.pane,
      source: 'test',
      agent: 'claude',
      state: 'working',
    });
    expect(reported.error).toBeUndefined();
    try {
      const working = await compare(lead, [child.pane, '--message', 'hi']);
      expect(working).toMatchObject({ lean: true, stdout: `sent m_ID to ${child.pane}\n` });
    } finally {
      await t.herdr.call('pane.report_agent', {
        pane_id: child.pane,
        source: 'test',
        agent: 'claude',
        state: 'idle',
      });
    }
  });

  it('escape sequences and a long text: kept as sent, the long one whole in its body file', async () => {
    const evil = 'look \x1b]0;owned\x07here \x1b[31mred\x1b[0m';
    const escaped = await compare(lead, [child.pane, '--message', evil]);
    expect(escaped.lean).toBe(true);
    expect(escaped.stdout).not.toContain('\x1b');
    const long = `${'x'.repeat(100_000)} end`;
    const run = await compare(lead, [child.pane, '--message', long]);
    expect(run.lean).toBe(true);
    const body = Object.keys(run.files).find((name) => name.endsWith('.txt'));
    expect(body).toBe(`inbox/${child.terminal}.d/m_ID.txt`);
    expect(run.files[body as string]).toBe(long);
  });

  it('compacts what settled and drops what expired, bodies included, as the full send does', async () => {
    const dir = join(t.box.state, 'inbox', `${child.terminal}.d`);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'm_old0old0old0.txt'), 'old body');
    await writeInbox(child, [
      record('m_old0old0old0', {
        state: 'delivered',
        delivered_ms: NOW - 2 * 86_400_000,
        body: { bytes: 8, chars: 8 },
      }),
      record('m_recent0recent', { state: 'delivered', delivered_ms: NOW - 60_000 }),
      record('m_waiting0wait'),
    ]);
    const run = await compare(lead, [child.pane, '--message', 'next']);
    expect(run.lean).toBe(true);
    expect(run.files[`inbox/${child.terminal}.d/m_old0old0old0.txt`]).toBeUndefined();
    expect(JSON.parse(run.files[`inbox/${child.terminal}.d/settled.json`] ?? '').records).toMatchObject([
      { id: 'm_recent0recent' },
    ]);
  });

  it('refusals under the lock: no reader, a full inbox, no room; nothing written', async () => {
    const fresh = await t.newPane();
    const none = await compare(lead, [fresh.pane, '--message', 'hi']);
    expect(none).toMatchObject({ code: 2, lean: true, stdout: '' });
    expect(none.stderr).toContain('has no inbox reader');
    await writeInbox(child, [
      record('m_huge0huge0hu', { body: { bytes: 32 * 1024 * 1024 - 600, chars: 1 } }),
    ]);
    const room = await compare(lead, [child.pane, '--message', 'one more']);
    expect(room).toMatchObject({ code: 2, lean: true });
    expect(room.stderr).toMatch(/^dogsled: send: no room in the inbox of .*; nothing was sent$/);
    await writeInbox(
      child,
      Array.from({ length: 500 }, (_, i) => record(`m_full${String(i).padStart(8, '0')}`)),
    );
    const full = await compare(lead, [child.pane, '--message', 'one more']);
    expect(full).toMatchObject({ code: 2, lean: true });
    expect(full.stderr).toContain('is full');
  });

  it('an inbox that is a directory or a FIFO: the one-line error; not JSON: moved aside as ever', async () => {
    const file = join(t.box.state, inboxName(child));
    await import('node:fs/promises').then(({ rm }) => rm(file));
    await mkdir(file);
    const dir = await compare(lead, [child.pane, '--message', 'hi']);
    expect(dir).toMatchObject({ code: 2, stdout: '', lean: true });
    expect(dir.stderr).toContain('is a directory, not a regular file');
    await import('node:fs/promises').then(({ rm }) => rm(file, { recursive: true }));
    await mkfifo(file);
    const fifo = await compare(lead, [child.pane, '--message', 'hi']);
    expect(fifo).toMatchObject({ code: 2, stdout: '', lean: true });
    expect(fifo.stderr).toContain('is a FIFO');
    await import('node:fs/promises').then(({ rm }) => rm(file));
    await writeFile(file, '{"version": 1, "records": [');
    const corrupt = await compare(lead, [child.pane, '--message', 'hi']);
    expect(corrupt).toMatchObject({ code: 2, lean: true });
    expect(corrupt.stderr).toMatch(/was corrupt[\s\S]*has no inbox reader/);
  });

  it('waits behind a holder frozen inside the inbox lock, and writes after it', async () => {
    const env = { DOGSLED_TEST_LOCK_STALE_MS: '1000' };
    const holding = started(
      [CLI, 'send', child.pane, '--message', 'first'],
      envFor(lead, {
        ...env,
        DOGSLED_TIMING: '1',
        ...stopInLock(`${child.terminal}.json`),
      }),
    );
    let second: ReturnType<typeof started> | undefined;
    const holder: ChildProcess = holding.proc;
    try {
      await stoppedItself(holder.pid);
      second = started(
        [CLI, 'send', child.pane, '--message', 'second'],
        envFor(lead, { ...env, DOGSLED_TIMING: '1' }),
      );
      // Three stale windows: a waiter that judged the lock by its age would have broken it by then.
      await lockUnrefreshedFor(join(t.box.state, inboxName(child)), 3_000);
      expect(second.proc.exitCode).toBeNull();
      holder.kill('SIGCONT');
      // Both ended before the state is read: the second's write in flight (its temp file listed,
      // then renamed away) failed a read of the first's result once.
      const ended = [await holding.done, await second.done] as const;
      const [first, next] = [await finished(ended[0]), await finished(ended[1])];
      for (const run of [first, next]) expect(run).toMatchObject({ code: 0, lean: true, stderr: '' });
      expect(
        JSON.parse(next.files[inboxName(child)] ?? '').records.map((r: { text: string }) => r.text),
      ).toEqual(['first', 'second']);
    } finally {
      holder.kill('SIGCONT');
      holder.kill('SIGKILL');
      second?.proc.kill('SIGKILL');
    }
  }, 60_000);
});

describe("the lean send's write at once (inbox/send-now.ts), the waiting write where it declines", () => {
  const lockDir = () => join(t.box.state, `${inboxName(child)}.lock`);
  const texts = (run: Run) =>
    JSON.parse(run.files[inboxName(child)] ?? '').records.map((r: { text: string }) => r.text);

  it('loads neither node:fs/promises, the waiting lock nor node:net where the lock is free', async () => {
    const out = join(t.box.root, 'modules.txt');
    const probe = join(t.box.root, 'probe.cjs');
    await writeFile(
      probe,
      `const before = new Set(process.moduleLoadList);
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.filter((m) => !before.has(m)).join('\\n')));`,
    );
    // Twice: the second run compiles from the code cache the first one wrote (its key holds execArgv).
    for (const text of ['one', 'two']) {
      const run = await finished(
        await started(['-r', probe, CLI, 'send', child.pane, '--message', text], envFor(lead)).done,
      );
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(texts(run).at(-1)).toBe(text);
    }
    const loaded = (await readFile(out, 'utf8')).split('\n').filter(Boolean);
    // Node's own pipe handle (its bindings) is what the Herdr call uses instead of node:net.
    const modules =
      /^NativeModule (.*fs\/promises|timers\/promises|net|stream|internal\/streams)|signal_wrap/;
    expect(loaded.filter((m) => modules.test(m))).toEqual([]);
  });

  it("the inbox's lock left by a dead holder: the waiting write breaks it, and the same record is written", async () => {
    await mkdir(lockDir());
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const owner = { pid: dead, start: null, hostname: hostname(), token: 'gone', since_ms: NOW - 1_000 };
    await writeFile(join(lockDir(), 'owner'), JSON.stringify(owner));
    const run = await compare(lead, [child.pane, '--message', 'after a dead holder']);
    expect(run).toMatchObject({ code: 0, lean: true });
    expect(texts(run)).toEqual(['after a dead holder']);
    expect(Object.keys(run.files).filter((name) => name.includes('.lock'))).toEqual([]);
  });

  it('a lock held by a live process: the lean send waits for it, and writes once it is gone', async () => {
    await mkdir(lockDir());
    const owner = { pid: process.pid, start: null, hostname: hostname(), token: 'mine', since_ms: NOW };
    await writeFile(join(lockDir(), 'owner'), JSON.stringify(owner));
    const run = started(
      [CLI, 'send', child.pane, '--message', 'after a live holder'],
      envFor(lead, { DOGSLED_TIMING: '1' }),
    );
    try {
      // Still waiting a second later: nothing written past a lock someone holds.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(run.proc.exitCode).toBeNull();
      expect(JSON.parse(await readFile(join(t.box.state, inboxName(child)), 'utf8')).records).toEqual([]);
      await rm(lockDir(), { recursive: true });
      const done = await finished(await run.done);
      expect(done).toMatchObject({ code: 0, lean: true, stderr: '' });
      expect(texts(done)).toEqual(['after a live holder']);
    } finally {
      run.proc.kill('SIGKILL');
    }
  });

  it('a settled.json that is a directory, a FIFO or not JSON: the waiting write meets it as the full send does', async () => {
    // A delivered record to move makes the full send read and write settled.json; a pending one
    // only read it. Both, for each hostile file.
    const settled = join(t.box.state, `inbox/${child.terminal}.d`, 'settled.json');
    for (const records of [
      [],
      [record('m_seen0seen0seen', { state: 'delivered', delivered_ms: NOW - 1_000 })],
    ]) {
      for (const make of [
        (file: string) => mkdir(file),
        (file: string) => mkfifo(file),
        (file: string) => writeFile(file, '{"version": 1, "records": ['),
      ]) {
        await restoreState(t.box.state, baseline);
        await writeInbox(child, records);
        await mkdir(join(settled, '..'), { recursive: true });
        await make(settled);
        const run = await compare(lead, [child.pane, '--message', 'beside a hostile settled file']);
        expect(run.lean).toBe(true);
      }
    }
  });

  it('escape sequences, quotes and a text at the inline bound and past it: the same bytes as the full send', async () => {
    const texts2 = [
      '\u001b[31mred\u001b[0m \u001b]0;title\u0007 "quoted" \\ back',
      'é'.repeat(100),
      'x'.repeat(2_048),
    ];
    for (const text of [...texts2, 'y'.repeat(2_049)]) {
      await restoreState(t.box.state, baseline);
      const run = await compare(lead, [child.pane, '--message', text]);
      expect(run).toMatchObject({ code: 0, lean: true });
      expect(texts(run)).toEqual([text.slice(0, 2_048)]);
    }
  });
});

describe('anything else falls back to the full command line, which answers as it always did', () => {
  it('a name, a pane Herdr does not list, a message file, a flag the lean path does not take', async () => {
    for (const args of [
      ['worker', '--message', 'hi'],
      ['w99:p1', '--message', 'hi'],
      [child.pane, '--message', 'hi', '--host', 'local'],
    ]) {
      const run = await compare(lead, args);
      expect({ args, lean: run.lean }).toEqual({ args, lean: false });
    }
    const note = join(t.box.root, 'note.txt');
    await writeFile(note, 'from a file');
    const file = await compare(lead, [child.pane, '--message-file', note]);
    expect(file).toMatchObject({ code: 0, lean: false });
  });

  it('an unknown kind: the refusal as ever', async () => {
    // (A text over the 4 MiB bound cannot come as one argument: Linux caps one at 128 KiB.)
    const kind = await compare(lead, [child.pane, '--kind', 'gossip', '--message', 'hi']);
    expect(kind).toMatchObject({ code: 2, lean: false });
    expect(kind.stderr).toContain('--kind gossip: expected one of');
  });

  it('an inbox or items.json its schema refuses: quarantined and named by the full path', async () => {
    await writeInbox(child, [record('m_bad0bad0bad0', { attempts: -1 })]);
    const run = await compare(lead, [child.pane, '--message', 'hi']);
    expect(run.lean).toBe(false);
    expect(run.stderr).toContain('was corrupt');
    await restoreState(t.box.state, baseline);
    await writeFile(join(t.box.state, 'items.json'), JSON.stringify({ version: 1, items: [{ id: 3 }] }));
    const items = await compare(lead, [child.pane, '--message', 'hi']);
    expect(items).toMatchObject({ code: 0, lean: false });
    expect(items.stderr).toContain('items.json was corrupt');
  });
});
