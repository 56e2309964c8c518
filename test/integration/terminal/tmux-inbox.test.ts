// The inbox in a real tmux with no Herdr: `send` finds the target agent by its name (or pane id)
// and the sender by TMUX_PANE, records are keyed by the tmux terminal (`%N@<server pid>`), and a
// fake Claude started in a tmux pane with the dogsled plugin's hooks gets a message sent during its
// turn from its Stop hook. `inbox list|claim|ack` act on the caller's tmux pane.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents, readLaunches } from '../../fakes/agents/harness.js';
import { runCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { startClaudeChild, tmuxAgentBox } from './tmux-fixtures.js';

const t = tmuxAgentBox('inbox');

function cli(pane: string | null, args: string[]) {
  const env = { ...t.box.env, ...t.server.env, ...(pane === null ? {} : { TMUX_PANE: pane }) };
  return runCli(args, env, { timeoutMs: 30_000 });
}

async function inboxOf(pane: string) {
  const terminal = `${pane}@${t.server.pid}`;
  return JSON.parse(await readFile(join(t.box.state, 'inbox', `${terminal}.json`), 'utf8'));
}

describe('the inbox in tmux', () => {
  it("delivers a message sent during the child's turn from its Stop hook, keyed by its tmux terminal", async () => {
    const text = "Please also update the README; it's #{pane_id} \u001b[31mred.";
    const script = {
      steps: [
        // Sent from the lead's pane while the child works, by the child's agent name.
        { run: `TMUX_PANE=${t.lead} dogsled send kid --message-file ${join(t.box.root, 'note.txt')}` },
        { reply: 'first answer' },
      ],
      on_stop_block: [{ reply: 'README updated too.' }],
    };
    await writeFile(join(t.box.root, 'note.txt'), text);
    const child = await startClaudeChild(t, 'kid', script);
    const launch = await waitFor('the launch', async () => (await readLaunches(t.logDir))[0]);
    const stops = await waitFor('two stops', async () => {
      const events = (await readEvents(launch)).filter((e) => e.event === 'hook' && e.name === 'Stop');
      return events.length >= 2 ? events : undefined;
    });
    expect(stops.map((s) => s.block)).toEqual([expect.stringContaining("it's #{pane_id}"), null]);
    expect(stops[0]?.block).not.toContain('\u001b');

    const inbox = await inboxOf(child);
    expect(inbox).toMatchObject({ terminal: `${child}@${t.server.pid}`, pane: child });
    expect(inbox.reader).toMatchObject({ harness: 'claude' });
    expect(inbox.records).toEqual([
      expect.objectContaining({
        kind: 'message',
        state: 'delivered',
        sender: expect.objectContaining({ pane: t.lead, terminal: `${t.lead}@${t.server.pid}` }),
      }),
    ]);

    // The t.lead lists what it sent; the child lists what it received.
    const sent = JSON.parse((await cli(t.lead, ['inbox', 'list', '--json'])).stdout);
    expect(sent).toMatchObject({ pane: t.lead, terminal: `${t.lead}@${t.server.pid}`, received: [] });
    expect(sent.sent).toEqual([expect.objectContaining({ state: 'delivered' })]);
    const mine = await cli(child, ['inbox', 'list', '--json']);
    expect(mine.code).toBe(0);
    expect(JSON.parse(mine.stdout).received).toHaveLength(1);
  });

  it('sends by pane id, claims and acks from a tmux pane, and refuses an unknown target or no reader', async () => {
    const claimed = await cli(t.lead, ['inbox', 'claim', '--harness', 'pi']);
    expect({ code: claimed.code, stderr: claimed.stderr }).toEqual({ code: 0, stderr: '' });
    const other = (await t.port.createTab({ cwd: t.box.home })).root_pane.pane_id;
    const sent = await cli(other, ['send', t.lead, '--message', 'hello lead']);
    expect({ code: sent.code, stderr: sent.stderr }).toEqual({ code: 0, stderr: '' });
    expect(sent.stdout).toMatch(new RegExp(`^sent m_\\w+ to ${t.lead}\\n$`));
    const batch = JSON.parse((await cli(t.lead, ['inbox', 'claim', '--harness', 'pi'])).stdout);
    expect(batch.text).toContain('hello lead');
    const ids = batch.records.map((r: { id: string }) => r.id);
    expect((await cli(t.lead, ['inbox', 'ack', ...ids])).code).toBe(0);
    expect((await inboxOf(t.lead)).records[0].state).toBe('delivered');

    const unknown = await cli(other, ['send', '%999', '--message', 'x']);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: 'dogsled: send: no agent or pane "%999" on this host\n',
    });
    const noReader = await cli(t.lead, ['send', other, '--message', 'x']);
    expect(noReader.code).toBe(2);
    expect(noReader.stderr).toMatch(/has no inbox reader/);
    const outside = await cli(null, ['inbox', 'list']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/^dogsled: inbox list: not run in a Herdr or tmux pane/);
  });
});
