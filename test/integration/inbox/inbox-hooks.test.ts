// `hook inbox` as Claude Code and Codex run it: the first run registers the reader, pending records
// come out once (a Stop block or UserPromptSubmit context) and are acknowledged, nothing new means no
// output at all (also with stop_hook_active), untrusted text arrives bounded and escape-free, and
// every failure is a silent exit 0.

import { execFileSync, spawn } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOCK_STALE_MS } from '../../../service/state/engine/lock.js';
import { ROOT, runCli } from '../../helpers/cli.js';
import {
  hookJson,
  type InboxBox,
  inboxBox,
  inboxPair,
  type PaneRef,
  registerClaude,
} from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

const STOP = ['inbox', '--harness', 'claude', '--event', 'Stop'];
const PROMPT = ['inbox', '--harness', 'claude', '--event', 'UserPromptSubmit'];
const stopInput = (active: boolean) => ({ hook_event_name: 'Stop', stop_hook_active: active });

/** A fresh sandbox and fake Herdr per test: for tests that change the state dir itself. */
function freshBoxes(): void {
  beforeEach(async () => {
    ({ t, lead, child } = await inboxPair());
  });
  afterEach(async () => {
    await t.close();
  });
}

/** One sandbox and fake Herdr for a describe, and a new pane (its own inbox) per test. */
function sharedBox(): void {
  beforeAll(async () => {
    t = await inboxBox();
    lead = await t.newPane();
  });
  beforeEach(async () => {
    child = await t.newPane();
  });
  afterAll(async () => {
    await t?.close();
  });
}

/** A record from `lead` into `child`'s inbox, as `dogsled send` writes it (the action, in this process). */
function send(text: string, kind?: string): Promise<string> {
  return t.send(lead, child.pane, text, kind === undefined ? {} : { kind });
}

function silent(result: { code: number | null; stdout: string; stderr: string }): void {
  expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
}

describe('hook inbox', () => {
  sharedBox();

  it('registers the reader on its first run and prints nothing when nothing is pending', async () => {
    silent(await t.hook(child, PROMPT, { hook_event_name: 'UserPromptSubmit', prompt: 'hi' }));
    expect(await t.inbox(child)).toMatchObject({
      reader: { harness: 'claude', pane: child.pane },
      records: [],
    });
    silent(await t.hook(child, ['inbox', '--harness', 'codex', '--event', 'Stop'], stopInput(false)));
    expect((await t.inbox(child)).reader.harness).toBe('codex');
  });

  it('hands pending records to UserPromptSubmit as additionalContext, once, and acknowledges them', async () => {
    await registerClaude(t, child);
    const id = await send('Also cover the empty case.');
    const first = await t.hook(child, PROMPT, { hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
    expect(first.code).toBe(0);
    const json = hookJson(first);
    expect(json.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(json.hookSpecificOutput.additionalContext).toContain(`[message from ${lead.pane}, `);
    expect(json.hookSpecificOutput.additionalContext).toContain('Also cover the empty case.');
    expect(json).not.toHaveProperty('decision');
    expect((await t.inbox(child)).records).toEqual([
      expect.objectContaining({ id, state: 'delivered', attempts: 1, lease_until_ms: null }),
    ]);
    silent(await t.hook(child, PROMPT, { hook_event_name: 'UserPromptSubmit', prompt: 'again' }));
  });

  it('continues the turn at Stop with the records as the reason, then stays silent even with stop_hook_active', async () => {
    await registerClaude(t, child);
    await send('first');
    await send('second', 'task');
    const stop = hookJson(await t.hook(child, STOP, stopInput(false)));
    expect(stop.decision).toBe('block');
    expect(stop.reason).toMatch(/^dogsled inbox: 2 new records/);
    expect(stop.reason.indexOf('first')).toBeLessThan(stop.reason.indexOf('second'));
    expect(stop.reason).toContain('[task from ');
    silent(await t.hook(child, STOP, stopInput(true)));
    silent(await t.hook(child, STOP, stopInput(true)));
  });

  it('never lets escape sequences or a whole 1 MB message reach the harness', async () => {
    await registerClaude(t, child);
    await send('\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\r\x9b6n text');
    await send(`${'0123456789'.repeat(100_000)}\x1b[?1049h`);
    const result = await t.hook(child, STOP, stopInput(false));
    expect(result.stdout.length).toBeLessThan(10_000);
    const reason = hookJson(result).reason as string;
    expect(reason).toContain('red text');
    expect(reason).toContain('1000000 characters in all; read the whole message with: dogsled inbox list');
    expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(reason)).toBe(false);
    expect(result.stdout).not.toContain('\\u001b');
  });

  it('removes bidi overrides and zero-width characters from what reaches the harness and inbox list', async () => {
    await registerClaude(t, child);
    // Read as written, this says to push to "main"; U+202E makes it show as something else.
    await send('push \u202Eniam\u202C to o\u200Brigin\u2066\u{E0041}\u2069 now');
    const hidden = /[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|\u{DB40}/u;
    const listed = JSON.parse((await t.cli(child, ['inbox', 'list', '--json'])).stdout);
    expect(listed.received[0].text).toBe('push niam to origin now');
    expect(listed.lines.some((line: string) => hidden.test(line))).toBe(false);
    const human = (await t.cli(child, ['inbox', 'list'])).stdout;
    expect(human).toContain('    push niam to origin now\n');
    expect(hidden.test(human)).toBe(false);
    const reason = hookJson(await t.hook(child, STOP, stopInput(false))).reason as string;
    expect(reason).toContain('push niam to origin now');
    expect(hidden.test(reason)).toBe(false);
  });

  it('delivers a backlog in bounded batches, one per stop, oldest first', async () => {
    await registerClaude(t, child);
    for (let i = 0; i < 5; i++) await send('L'.repeat(5_000));
    const first = hookJson(await t.hook(child, STOP, stopInput(false))).reason as string;
    expect(first.length).toBeLessThan(10_000);
    expect(first).toMatch(/^dogsled inbox: 4 new records/);
    expect(first).toMatch(/\(1 more wait for your next prompt or stop: dogsled inbox list\)$/);
    const second = hookJson(await t.hook(child, STOP, stopInput(true))).reason as string;
    expect(second).toMatch(/^dogsled inbox: 1 new record/);
    silent(await t.hook(child, STOP, stopInput(true)));
  });
});

describe('hook inbox on failure exits 0 with no output', () => {
  freshBoxes();

  it('without a state dir (and creates none)', async () => {
    await rm(t.box.state, { recursive: true });
    silent(await t.hook(child, STOP, stopInput(false)));
    await expect(import('node:fs/promises').then((fs) => fs.stat(t.box.state))).rejects.toThrow();
  });

  it('with a corrupt inbox, which is moved aside without a word', async () => {
    await mkdir(join(t.box.state, 'inbox'), { recursive: true });
    await writeFile(t.inboxPath(child), '{"version": 1, "records": [tru');
    silent(await t.hook(child, STOP, stopInput(false)));
  });

  it('with an inbox that is a directory or a FIFO', async () => {
    await mkdir(t.inboxPath(child), { recursive: true });
    silent(await t.hook(child, STOP, stopInput(false)));
    await rm(t.inboxPath(child), { recursive: true });
    execFileSync('mkfifo', [t.inboxPath(child)]);
    silent(await t.hook(child, STOP, stopInput(false)));
  });

  it('without Herdr, outside a Herdr pane, or with garbage on stdin', async () => {
    const gone = { HERDR_SOCKET_PATH: join(t.box.root, 'gone.sock'), PATH: '/usr/bin:/bin' };
    silent(await t.hook(child, STOP, stopInput(false), gone));
    silent(await t.hook(child, STOP, stopInput(false), { HERDR_ENV: '' }));
    silent(await runCli(['hook', ...STOP], t.envOf(child), { input: '\x1b[2J not json {{{' }));
    expect(await t.inbox(child)).toMatchObject({ reader: { harness: 'claude' } });
  });

  it('when the inbox lock is held by a process frozen with SIGSTOP, within its budget', async () => {
    await registerClaude(t, child);
    await send('waiting behind a frozen lock');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `require('proper-lockfile').lock(process.argv[1], {realpath: false, stale: 1e12, update: 5000})
           .then(() => { console.log('locked'); setInterval(() => {}, 1e6); })`,
        t.inboxPath(child),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      let said = '';
      holder.stdout.on('data', (d: Buffer) => {
        said += d.toString();
      });
      await waitFor('the lock holder', async () => (said.includes('locked') ? true : undefined), {
        timeoutMs: 10_000,
      });
      process.kill(holder.pid as number, 'SIGSTOP');
      silent(await t.hook(child, STOP, stopInput(false)));
      expect((await t.inbox(child)).records[0].state).toBe('pending');
    } finally {
      holder.kill('SIGKILL');
    }
    // The holder is dead now, but its lock (proper-lockfile's own) names no owner to judge: it is
    // broken once it has gone unrefreshed for the stale window. Once it has, the record comes out.
    const lock = `${t.inboxPath(child)}.lock`;
    await waitFor(
      "the dead holder's lock to go stale",
      async () => {
        const mtimeMs = await stat(lock).then(
          (info) => info.mtimeMs,
          () => 0,
        );
        return mtimeMs < Date.now() - LOCK_STALE_MS;
      },
      { timeoutMs: 40_000, intervalMs: 250 },
    );
    const after = await waitFor(
      'delivery after the holder died',
      async () => hookJson(await t.hook(child, STOP, stopInput(false))),
      { timeoutMs: 10_000, intervalMs: 1_000 },
    );
    expect(after.reason).toContain('waiting behind a frozen lock');
  }, 60_000);

  it('a malformed registration exits 0 with no output, as every hook failure, and leaves one line in hooks.log', async () => {
    await registerClaude(t, child);
    await send('not for a broken hook');
    const wrong = [
      ['inbox', '--harness', 'pi', '--event', 'Stop'],
      ['inbox', '--harness', 'claude', '--event', 'SessionStart'],
      ['inbox', '--harness', 'claude', '--bogus'],
      ['context', '--harness', 'vim'],
    ];
    for (const args of wrong) {
      expect(await t.hook(child, args, stopInput(false))).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    const log = (await readFile(join(t.box.state, 'hooks.log'), 'utf8')).split('\n');
    expect(log).toEqual([
      expect.stringMatching(/^\S+Z hook inbox: --harness must be claude or codex, got "pi"$/),
      expect.stringMatching(
        /^\S+Z hook inbox: --event must be Stop or UserPromptSubmit, got "SessionStart"$/,
      ),
      expect.stringMatching(/^\S+Z hook inbox: Unknown option '--bogus'/),
      expect.stringMatching(/^\S+Z hook context: --harness must be claude or codex or pi, got "vim"$/),
      '',
    ]);
    // Nothing was delivered or claimed by a hook that did not run.
    expect((await t.inbox(child)).records[0]).toMatchObject({ state: 'pending', attempts: 0 });
  }, 60_000);

  it('hooks.log stays bounded: past 64 KiB it moves to hooks.log.1 and starts again', async () => {
    await writeFile(join(t.box.state, 'hooks.log'), 'x'.repeat(70 * 1024));
    silent(await t.hook(child, ['inbox', '--harness', 'pi', '--event', 'Stop']));
    expect((await readFile(join(t.box.state, 'hooks.log.1'), 'utf8')).length).toBe(70 * 1024);
    expect((await readFile(join(t.box.state, 'hooks.log'), 'utf8')).split('\n')).toHaveLength(2);
  }, 60_000);

  it('a hooks.log that cannot be written (a directory in its place) still leaves the hook silent', async () => {
    await mkdir(join(t.box.state, 'hooks.log'), { recursive: true });
    const result = await t.hook(child, ['inbox', '--harness', 'pi', '--event', 'Stop']);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
  }, 60_000);
});

describe('claims are leases', () => {
  sharedBox();
  const clock = (ms: number) => ({ DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(ms) });
  const T0 = 1_800_000_000_000;

  it('a hook killed between claim and ack gets its record offered exactly once more', async () => {
    await registerClaude(t, child);
    const id = await send('deliver me after a crash');
    const env = t.envOf(child, { ...clock(T0), DOGSLED_TEST_HOOK_PAUSE_MS: '60000' });
    const crashed = spawn(process.execPath, [join(ROOT, 'dist', 'dogsled.cjs'), 'hook', ...STOP], { env });
    let printed = '';
    crashed.stdout.on('data', (d: Buffer) => {
      printed += d.toString();
    });
    crashed.stdin.end(JSON.stringify(stopInput(false)));
    await waitFor('the first print', async () => (printed.includes('deliver me') ? true : undefined), {
      timeoutMs: 10_000,
    });
    crashed.kill('SIGKILL');
    expect((await t.inbox(child)).records[0]).toMatchObject({ id, state: 'claimed', attempts: 1 });
    // Within the lease (8-12 s), no other run takes it.
    silent(await t.hook(child, STOP, stopInput(false), clock(T0 + 7_000)));
    const again = hookJson(await t.hook(child, STOP, stopInput(false), clock(T0 + 13_000)));
    expect(again.reason).toContain('deliver me after a crash');
    expect((await t.inbox(child)).records[0]).toMatchObject({ id, state: 'delivered', attempts: 2 });
    silent(await t.hook(child, STOP, stopInput(true), clock(T0 + 400_000)));
  });

  it('two readers racing never both print one record', async () => {
    await registerClaude(t, child);
    const held = await send('held by the first reader');
    // One clock for every process: the first reader's lease must not end however slow the machine is.
    const env = t.envOf(child, { ...clock(T0), DOGSLED_TEST_HOOK_PAUSE_MS: '60000' });
    const first = spawn(process.execPath, [join(ROOT, 'dist', 'dogsled.cjs'), 'hook', ...PROMPT], { env });
    let printed = '';
    first.stdout.on('data', (d: Buffer) => {
      printed += d.toString();
    });
    first.stdin.end('{}');
    try {
      await waitFor('first', async () => (printed.includes('held by the first') ? true : undefined), {
        timeoutMs: 10_000,
      });
      silent(await t.hook(child, STOP, stopInput(false), clock(T0)));
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await send(`burst ${i}`));
      const runs = await Promise.all(
        Array.from({ length: 4 }, () => t.hook(child, STOP, stopInput(false), clock(T0))),
      );
      const seen = runs.flatMap((run) => {
        const reason = run.stdout === '' ? '' : (hookJson(run).reason as string);
        return ids.filter((_, i) => reason.includes(`burst ${i}`));
      });
      expect(seen.sort()).toEqual([...ids].sort());
      expect(runs.map((run) => run.stdout).join('')).not.toContain('held by the first');
    } finally {
      first.kill('SIGKILL');
    }
    expect((await t.inbox(child)).records.find((r: { id: string }) => r.id === held).state).toBe('claimed');
  });
});

describe("the hook's own terminal", () => {
  // terminals.json is the state dir's, shared by every pane: a box per test.
  freshBoxes();

  const herdrCalls = async () =>
    ((await t.herdr.call('_fake.calls.list', {})).result.calls as { method: string }[]).map((c) => c.method);

  it('is asked of Herdr once per pane and server, then remembered', async () => {
    await registerClaude(t, child);
    expect(await herdrCalls()).toContain('pane.get');
    await t.herdr.call('_fake.calls.clear', {});
    await send('no Herdr round trip for this one');
    await t.herdr.call('_fake.calls.clear', {});
    const stop = hookJson(await t.hook(child, STOP, stopInput(false)));
    expect(stop.reason).toContain('no Herdr round trip for this one');
    expect(await herdrCalls()).toEqual([]);
    const memo = JSON.parse(await readFile(join(t.box.state, 'terminals.json'), 'utf8'));
    expect(memo.panes[child.pane]).toMatchObject({ terminal: child.terminal, pane: child.pane });
  });

  it('asks Herdr again under another server, and past a broken memo', async () => {
    await registerClaude(t, child);
    const file = join(t.box.state, 'terminals.json');
    const memo = JSON.parse(await readFile(file, 'utf8'));
    // A memo from an earlier server instance, claiming the pane was another terminal.
    await writeFile(
      file,
      JSON.stringify({
        ...memo,
        server: '1:2:3',
        panes: { [child.pane]: { ...memo.panes[child.pane], terminal: 'term_stale' } },
      }),
    );
    await send('after a server restart');
    await t.herdr.call('_fake.calls.clear', {});
    expect(hookJson(await t.hook(child, STOP, stopInput(false))).reason).toContain('after a server restart');
    expect(await herdrCalls()).toContain('pane.get');
    expect(JSON.parse(await readFile(file, 'utf8')).panes[child.pane].terminal).toBe(child.terminal);
    await rm(file);
    await mkdir(file);
    await send('past a directory');
    expect(hookJson(await t.hook(child, STOP, stopInput(false))).reason).toContain('past a directory');
  });
});
