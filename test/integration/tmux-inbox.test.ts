// The inbox in a real tmux with no Herdr: `send` finds the target agent by its name (or pane id)
// and the sender by TMUX_PANE, records are keyed by the tmux terminal (`%N@<server pid>`), and a
// fake Claude started in a tmux pane with the dogsled plugin's hooks gets a message sent during its
// turn from its Stop hook. `inbox list|claim|ack` act on the caller's tmux pane.

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTerminal } from '../../service/terminal/open.js';
import type { TerminalPort } from '../../service/terminal/port.js';
import { FAKE_AGENTS_BIN, readEvents, readLaunches, until } from '../fakes/agents/harness.js';
import { CLI, ROOT, runCli, type Sandbox, sandbox } from '../helpers/cli.js';
import { startTmuxServer, type TmuxServer } from '../helpers/tmux-server.js';

let box: Sandbox;
let server: TmuxServer;
let port: TerminalPort;
let logDir: string;
let lead: string;

beforeEach(async () => {
  box = await sandbox();
  logDir = join(box.root, 'agent-log');
  const bin = join(box.root, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'dogsled'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
  await chmod(join(bin, 'dogsled'), 0o755);
  const plugin = JSON.parse(await readFile(join(ROOT, 'plugins', 'dogsled', 'hooks', 'hooks.json'), 'utf8'));
  await mkdir(join(box.home, '.claude'), { recursive: true });
  await writeFile(join(box.home, '.claude', 'settings.json'), JSON.stringify({ hooks: plugin.hooks }));
  await mkdir(box.state, { recursive: true });
  server = await startTmuxServer({
    dir: box.root,
    name: 'inbox',
    env: {
      PATH: `${bin}:${FAKE_AGENTS_BIN}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: box.home,
      DOGSLED_STATE: box.state,
      FAKE_AGENT_LOG_DIR: logDir,
    },
  });
  lead = (await server.tmux('display-message', '-p', '-t', 'base:', '#{pane_id}')).trim();
  port = await openTerminal({ env: server.env, home: box.home });
});

afterEach(async () => {
  await server.kill();
  await box.cleanup();
});

function cli(pane: string | null, args: string[]) {
  const env = { ...box.env, ...server.env, ...(pane === null ? {} : { TMUX_PANE: pane }) };
  return runCli(args, env, { timeoutMs: 30_000 });
}

/** A fake Claude named `name` in a new window's shell, running `script` as its first prompt. */
async function startChild(name: string, script: object): Promise<string> {
  // Not in HOME: there the user's settings would also be the project's, and every hook run twice.
  const work = join(box.root, 'work');
  await mkdir(work, { recursive: true });
  const pane = (await port.createTab({ cwd: work })).root_pane.pane_id;
  await until(
    async () => (await port.processInfo(pane)).foreground_processes.length > 0 || undefined,
    'the shell',
  );
  await port.startAgent({
    name,
    kind: 'claude',
    paneId: pane,
    args: [`fake-agent: ${JSON.stringify(script)}`],
  });
  return pane;
}

async function inboxOf(pane: string) {
  const terminal = `${pane}@${server.pid}`;
  return JSON.parse(await readFile(join(box.state, 'inbox', `${terminal}.json`), 'utf8'));
}

describe('the inbox in tmux', () => {
  it("delivers a message sent during the child's turn from its Stop hook, keyed by its tmux terminal", async () => {
    const text = "Please also update the README; it's #{pane_id} \u001b[31mred.";
    const script = {
      steps: [
        // Sent from the lead's pane while the child works, by the child's agent name.
        { run: `TMUX_PANE=${lead} dogsled send kid --message-file ${join(box.root, 'note.txt')}` },
        { reply: 'first answer' },
      ],
      on_stop_block: [{ reply: 'README updated too.' }],
    };
    await writeFile(join(box.root, 'note.txt'), text);
    const child = await startChild('kid', script);
    const launch = await until(async () => (await readLaunches(logDir))[0], 'the launch');
    const stops = await until(async () => {
      const events = (await readEvents(launch)).filter((e) => e.event === 'hook' && e.name === 'Stop');
      return events.length >= 2 ? events : undefined;
    }, 'two stops');
    expect(stops.map((s) => s.block)).toEqual([expect.stringContaining("it's #{pane_id}"), null]);
    expect(stops[0]?.block).not.toContain('\u001b');

    const inbox = await inboxOf(child);
    expect(inbox).toMatchObject({ terminal: `${child}@${server.pid}`, pane: child });
    expect(inbox.reader).toMatchObject({ harness: 'claude' });
    expect(inbox.records).toEqual([
      expect.objectContaining({
        kind: 'message',
        state: 'delivered',
        sender: expect.objectContaining({ pane: lead, terminal: `${lead}@${server.pid}` }),
      }),
    ]);

    // The lead lists what it sent; the child lists what it received.
    const sent = JSON.parse((await cli(lead, ['inbox', 'list', '--json'])).stdout);
    expect(sent).toMatchObject({ pane: lead, terminal: `${lead}@${server.pid}`, received: [] });
    expect(sent.sent).toEqual([expect.objectContaining({ state: 'delivered' })]);
    const mine = await cli(child, ['inbox', 'list', '--json']);
    expect(mine.code).toBe(0);
    expect(JSON.parse(mine.stdout).received).toHaveLength(1);
  });

  it('sends by pane id, claims and acks from a tmux pane, and refuses an unknown target or no reader', async () => {
    const claimed = await cli(lead, ['inbox', 'claim', '--harness', 'pi']);
    expect({ code: claimed.code, stderr: claimed.stderr }).toEqual({ code: 0, stderr: '' });
    const other = (await port.createTab({ cwd: box.home })).root_pane.pane_id;
    const sent = await cli(other, ['send', lead, '--message', 'hello lead']);
    expect({ code: sent.code, stderr: sent.stderr }).toEqual({ code: 0, stderr: '' });
    expect(sent.stdout).toMatch(new RegExp(`^sent m_\\w+ to ${lead}\\n$`));
    const batch = JSON.parse((await cli(lead, ['inbox', 'claim', '--harness', 'pi'])).stdout);
    expect(batch.text).toContain('hello lead');
    const ids = batch.records.map((r: { id: string }) => r.id);
    expect((await cli(lead, ['inbox', 'ack', ...ids])).code).toBe(0);
    expect((await inboxOf(lead)).records[0].state).toBe('delivered');

    const unknown = await cli(other, ['send', '%999', '--message', 'x']);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: 'dogsled: send: no agent or pane "%999" on this host\n',
    });
    const noReader = await cli(lead, ['send', other, '--message', 'x']);
    expect(noReader.code).toBe(2);
    expect(noReader.stderr).toMatch(/has no inbox reader/);
    const outside = await cli(null, ['inbox', 'list']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/^dogsled: inbox list: not run in a Herdr or tmux pane/);
  });
});
