// `send` through the fake Herdr: a pane resolves to its terminal, the record lands in that terminal's
// inbox file with the sender named, and every refusal (no reader, another host, a bad kind, no text,
// no Herdr, a broken inbox file) is one line, exit 2, with nothing written.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_AGENTS_BIN } from '../../fakes/agents/harness.js';
import { runCli } from '../../helpers/cli.js';
import { type InboxBox, inboxBox, inboxFiles, type PaneRef } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';

// One sandbox and fake Herdr for the file and a new target pane (its own terminal and inbox) per
// test: a box's start, and the registration hook each test ran, were a large part of its cost. A
// reader is registered by the claim action in this process; `send` itself always runs as the CLI.
let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

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

function oneLineError(
  result: { code: number | null; stdout: string; stderr: string },
  pattern: RegExp,
): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
}

describe('send', () => {
  it('writes one pending record into the target terminal inbox, naming the sender', async () => {
    await t.register(child);
    const result = await t.cli(lead, ['send', child.pane, '--message', 'Also cover the empty case.']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    // A Claude Code reader that is not working reads only at its next prompt or stop: said so.
    const id = /^sent (m_[a-z2-7]{12}) /.exec(result.stdout)?.[1];
    expect(result.stdout).toBe(
      `sent ${id} to ${child.pane}: it is idle, so claude reads ${id} at its next prompt or stop\n`,
    );
    const inbox = await t.inbox(child);
    expect(inbox).toMatchObject({
      terminal: child.terminal,
      pane: child.pane,
      reader: { harness: 'claude' },
    });
    expect(inbox.records).toEqual([
      expect.objectContaining({
        kind: 'message',
        text: 'Also cover the empty case.',
        state: 'pending',
        attempts: 0,
        sender: { pane: lead.pane, terminal: lead.terminal, host: 'local', name: null },
      }),
    ]);
  });

  it('refuses a target with no registered reader at once and writes nothing', async () => {
    const result = await t.cli(lead, ['send', child.pane, '--message', 'hello']);
    oneLineError(
      result,
      new RegExp(`^dogsled: send: ${child.pane} has no inbox reader: .*nothing was sent\\n$`),
    );
    expect(await t.inbox(child)).toBeUndefined();
  });

  it('reads the text from a file, or from stdin with -, and keeps --kind', async () => {
    await t.register(child);
    const file = join(t.box.root, 'note.md');
    await writeFile(file, 'from a file\nsecond line\n');
    expect((await t.cli(lead, ['send', child.pane, '--kind', 'task', '--message-file', file])).code).toBe(0);
    const piped = await t.cli(lead, ['send', child.pane, '--message-file', '-'], { input: 'from stdin' });
    expect(piped.code).toBe(0);
    const records = (await t.inbox(child)).records;
    expect(records.map((r: { kind: string; text: string }) => [r.kind, r.text])).toEqual([
      ['task', 'from a file\nsecond line\n'],
      ['message', 'from stdin'],
    ]);
  });

  it('stores a 1 MB message whole (in its body file) and refuses one past the limit', async () => {
    await t.register(child);
    const big = join(t.box.root, 'big.txt');
    await writeFile(big, 'm'.repeat(1_000_000));
    expect((await t.cli(lead, ['send', child.pane, '--message-file', big])).code).toBe(0);
    const [stored] = (await t.inbox(child)).records;
    expect(stored.text).toHaveLength(2_048);
    const body = join(t.box.state, 'inbox', `${child.terminal}.d`, `${stored.id}.txt`);
    expect(await readFile(body, 'utf8')).toHaveLength(1_000_000);
    const huge = join(t.box.root, 'huge.txt');
    await writeFile(huge, 'h'.repeat(5 * 1024 * 1024));
    oneLineError(
      await t.cli(lead, ['send', child.pane, '--message-file', huge]),
      /^dogsled: send: --message-file ".*huge\.txt" is over the 4194304-byte limit\n$/,
    );
    expect((await t.inbox(child)).records).toHaveLength(1);
  });

  it.each([
    [
      ['--host', 'netcup', '--message', 'x'],
      /^dogsled: send: --host: unknown host "netcup" \(known: local\)\n$/,
    ],
    [
      ['--kind', 'gossip', '--message', 'x'],
      /^dogsled: send: --kind gossip: expected one of message, task, /,
    ],
    [[], /^dogsled: send: give the text with exactly one of --message and --message-file\n$/],
    [['--message', 'a', '--message-file', '-'], /exactly one of --message and --message-file/],
    [['--message', '  \n '], /^dogsled: send: --message is empty\n$/],
    [
      ['--message-file', '/nonexistent/note'],
      /^dogsled: send: --message-file "\/nonexistent\/note": no such file or directory \(ENOENT\)\n$/,
    ],
    [['--message-file', '/'], /^dogsled: send: --message-file "\/": it is a directory \(EISDIR\)\n$/],
    [['--host', '\x1b]0;pwned\x07x\x1b[2J', '--message', 'x'], /^dogsled: send: --host: unknown host "x" /],
  ])('refuses %j in one line with nothing written', async (flags, pattern) => {
    await t.register(child);
    const before = (await t.inbox(child)).records.length;
    oneLineError(await t.cli(lead, ['send', child.pane, ...flags]), pattern);
    expect((await t.inbox(child)).records).toHaveLength(before);
  });

  it('accepts --host local, and refuses an unknown target with escapes stripped', async () => {
    await t.register(child);
    expect((await t.cli(lead, ['send', child.pane, '--host', 'local', '--message', 'x'])).code).toBe(0);
    const unknown = await t.cli(lead, ['send', 'no-such\x1b[31m-agent', '--message', 'x']);
    oneLineError(unknown, /^dogsled: send: no agent or pane "no-such-agent" on this host\n$/);
  });

  it('resolves a tracked pane by its name, and refuses a name two owners gave two panes here', async () => {
    await t.register(child);
    expect((await t.cli(lead, ['track', 'local', child.pane, '--name', 'helper'])).code).toBe(0);
    const sent = await t.cli(lead, ['send', 'helper', '--message', 'by name']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(
      new RegExp(
        `^sent (m_[a-z2-7]{12}) to helper \\(${child.pane}\\): it is idle, so claude reads \\1 at its next prompt or stop\\n$`,
      ),
    );
    expect((await t.inbox(child)).records.map((r: { text: string }) => r.text)).toEqual(['by name']);
    // Another owner tracks another pane by the same name: which one is meant cannot be told.
    const other = await t.newPane();
    const third = await t.newPane();
    expect((await t.cli(third, ['track', 'local', other.pane, '--name', 'helper'])).code).toBe(0);
    const dup = await t.cli(lead, ['send', 'helper', '--message', 'which?']);
    oneLineError(
      dup,
      new RegExp(
        `^dogsled: send: "helper" names 2 panes here: ${child.pane} helper, ${other.pane} helper; send to one pane id; nothing was sent\\n$`,
      ),
    );
    expect((await t.inbox(child)).records).toHaveLength(1);
    expect(await t.inbox(other)).toBeUndefined();
  });

  it('needs Herdr or tmux', async () => {
    const env = { ...t.box.env, HERDR_SOCKET_PATH: join(t.box.root, 'absent.sock'), PATH: '/usr/bin:/bin' };
    const result = await runCli(['send', 'w1:p1', '--message', 'x'], env);
    oneLineError(result, /^dogsled: send needs Herdr or tmux \(/);
  });

  it('refuses an inbox file that is a directory or a FIFO in one line, without hanging', async () => {
    await t.register(child);
    // Another test's inbox files are this box's too: nothing may be added to what is there.
    const written = await inboxFiles(t.box.state);
    const file = t.inboxPath(child);
    const { rm } = await import('node:fs/promises');
    await rm(file);
    await mkdir(file);
    oneLineError(
      await t.cli(lead, ['send', child.pane, '--message', 'x']),
      // `send: ` comes from the command wrapper that names every error's command.
      new RegExp(`^dogsled: (send: )?inbox/${child.terminal}\\.json is a directory, not a regular file\\n$`),
    );
    await rm(file, { recursive: true });
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [file]);
    oneLineError(
      await t.cli(lead, ['send', child.pane, '--message', 'x']),
      /is a FIFO, not a regular file\n$/,
    );
    expect(written).toContain(`${child.terminal}.json`);
    expect(await inboxFiles(t.box.state)).toEqual(written);
  });
});

describe('send by agent name', () => {
  let named: InboxBox;

  beforeAll(async () => {
    named = await inboxBox({ env: { PATH: `${FAKE_AGENTS_BIN}:${process.env.PATH ?? ''}` } });
  });

  afterAll(async () => {
    await named?.close();
  });

  it("resolves a live agent's Herdr name to its terminal and names a named sender", async () => {
    const [a, b] = [await named.newPane(), await named.newPane()];
    for (const [pane, name] of [
      [a, 'lead-agent'],
      [b, 'api-dups'],
    ] as const) {
      const started = await named.herdr.call('agent.start', {
        name,
        kind: 'pi',
        pane_id: pane.pane,
        args: ['fake-agent: {"steps":[]}'],
      });
      expect(started.error).toBeUndefined();
    }
    await waitFor('both named agents listed', async () => {
      const { agents } = (await named.herdr.call('agent.list', {})).result;
      const names = agents.map((agent: { name?: string }) => agent.name);
      return names.includes('lead-agent') && names.includes('api-dups') ? true : undefined;
    });
    await named.register(b);
    const result = await named.cli(a, ['send', 'api-dups', '--message', 'Also cover the empty case.']);
    expect(result.stdout).toMatch(
      new RegExp(
        `^sent (m_\\w+) to api-dups \\(${b.pane}\\): it is idle, so claude reads \\1 at its next prompt or stop\\n$`,
      ),
    );
    expect((await named.inbox(b)).records[0].sender).toEqual({
      pane: a.pane,
      terminal: a.terminal,
      host: 'local',
      name: 'lead-agent',
    });
  });

  it('says nothing more when the Claude agent is working: its next stop reads the record', async () => {
    const pane = await named.newPane();
    const started = await named.herdr.call('agent.start', {
      name: 'busy-one',
      kind: 'claude',
      pane_id: pane.pane,
      args: ['fake-agent: {"steps":[{"hang":true}]}'],
    });
    expect(started.error).toBeUndefined();
    await waitFor('busy-one working', async () => {
      const { agents } = (await named.herdr.call('agent.list', {})).result;
      const agent = agents.find((a: { name?: string }) => a.name === 'busy-one');
      return agent?.agent_status === 'working' ? true : undefined;
    });
    await named.register(pane);
    const sender = await named.newPane();
    const result = await named.cli(sender, ['send', 'busy-one', '--message', 'One more thing.']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(new RegExp(`^sent m_\\w+ to busy-one \\(${pane.pane}\\)\\n$`));
  });
});
