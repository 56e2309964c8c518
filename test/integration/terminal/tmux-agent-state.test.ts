// An agent's state in a real tmux with no Herdr, from the dogsled plugin's hooks alone: a fake
// Claude started in a tmux pane reads idle at its session start, working on a prompt, blocked while
// a permission prompt waits (its Notification hook), and working again once its transcript moves
// after that report; `hook state` refuses what it does not take.

import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents, readLaunches } from '../../fakes/agents/harness.js';
import { runCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { startClaudeChild, tmuxAgentBox } from './tmux-fixtures.js';

const t = tmuxAgentBox('agents-state');

function cli(pane: string | null, args: string[], stdin: object) {
  const env = pane === null ? t.box.env : { ...t.box.env, ...t.server.env, TMUX_PANE: pane };
  return runCli(args, env, { timeoutMs: 30_000, input: JSON.stringify(stdin) });
}

async function stateOf(name: string): Promise<string> {
  return (await t.port.getAgent(name)).agent_status;
}

describe('agent state in tmux', () => {
  it('is blocked while a permission prompt waits, and idle once the answered turn stops', async () => {
    const child = await startClaudeChild(t, 'asker', {
      steps: [{ ask: 'May I run rm -rf build?' }, { reply: 'Cleaned.' }],
    });
    await waitFor('blocked', async () => ((await stateOf('asker')) === 'blocked' ? true : undefined));
    await t.port.runLine(child, 'yes');
    await waitFor('idle after the answer', async () =>
      (await stateOf('asker')) === 'idle' ? true : undefined,
    );
    const launch = await waitFor('the launch', async () => (await readLaunches(t.logDir))[0]);
    const notified = (await readEvents(launch)).filter(
      (e) => e.event === 'hook' && e.name === 'Notification',
    );
    expect(notified).toHaveLength(1);
  });

  it('reads working again when the transcript moves after a blocked report', async () => {
    const child = await startClaudeChild(t, 'waiter', { steps: [{ reply: 'ready' }] });
    // Idle after its turn's Stop hook ran, not the idle of its session start: a prompt hook still on
    // its way (slow under load) would report working after the notices below.
    await waitFor('the turn to stop', async () => {
      const launch = (await readLaunches(t.logDir)).find((l) => l.argv.join(' ').includes('"ready"'));
      const events = launch ? await readEvents(launch) : [];
      return events.some((e) => e.event === 'hook' && e.name === 'Stop') || undefined;
    });
    await waitFor('idle', async () => ((await stateOf('waiter')) === 'idle' ? true : undefined));
    const transcript = join(t.box.root, 'waiter.jsonl');
    await writeFile(transcript, '{}\n');
    const old = new Date(Date.now() - 60_000);
    await utimes(transcript, old, old);
    const notice = { session_id: 's-w', transcript_path: transcript, notification_type: 'permission_prompt' };
    const blocked = await cli(
      child,
      ['hook', 'state', '--harness', 'claude', '--event', 'Notification'],
      notice,
    );
    expect(blocked).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await stateOf('waiter')).toBe('blocked');
    const later = new Date(Date.now() + 60_000);
    await utimes(transcript, later, later);
    expect(await stateOf('waiter')).toBe('working');
    const idleNotice = { ...notice, notification_type: 'idle_prompt' };
    const idle = await cli(
      child,
      ['hook', 'state', '--harness', 'claude', '--event', 'Notification'],
      idleNotice,
    );
    expect(idle).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await utimes(transcript, old, old);
    expect(await stateOf('waiter')).toBe('idle');
  });

  it('refuses another harness or event in one line of hooks.log, exiting 0 as every hook failure, and outside tmux records nothing', async () => {
    const codex = await cli(t.lead, ['hook', 'state', '--harness', 'codex', '--event', 'Notification'], {});
    expect(codex).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const stop = await cli(t.lead, ['hook', 'state', '--harness', 'claude', '--event', 'Stop\u001b[2J'], {});
    expect(stop).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const log = await readFile(join(t.box.state, 'hooks.log'), 'utf8');
    expect(log.split('\n')).toEqual([
      expect.stringMatching(/^\S+Z hook state: --harness must be claude, got "codex"$/),
      expect.stringMatching(/^\S+Z hook state: --event must be .*, got "Stop.*"$/),
      '',
    ]);
    expect(log).not.toContain('\u001b');
    const outside = await cli(null, ['hook', 'state', '--harness', 'claude', '--event', 'Notification'], {
      notification_type: 'permission_prompt',
    });
    expect(outside).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await readdir(join(t.box.state, 'agent-reports')).catch(() => [])).toEqual([]);
  });
});
