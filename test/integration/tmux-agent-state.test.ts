// An agent's state in a real tmux with no Herdr, from the dogsled plugin's hooks alone: a fake
// Claude started in a tmux pane reads idle at its session start, working on a prompt, blocked while
// a permission prompt waits (its Notification hook), and working again once its transcript moves
// after that report; `hook state` refuses what it does not take.

import { chmod, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
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
    name: 'agents-state',
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

function cli(pane: string | null, args: string[], stdin: object) {
  const env = pane === null ? box.env : { ...box.env, ...server.env, TMUX_PANE: pane };
  return runCli(args, env, { timeoutMs: 30_000, input: JSON.stringify(stdin) });
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

async function stateOf(name: string): Promise<string> {
  return (await port.getAgent(name)).agent_status;
}

describe('agent state in tmux', () => {
  it('is blocked while a permission prompt waits, and idle once the answered turn stops', async () => {
    const child = await startChild('asker', {
      steps: [{ ask: 'May I run rm -rf build?' }, { reply: 'Cleaned.' }],
    });
    await until(async () => ((await stateOf('asker')) === 'blocked' ? true : undefined), 'blocked');
    await port.runLine(child, 'yes');
    await until(
      async () => ((await stateOf('asker')) === 'idle' ? true : undefined),
      'idle after the answer',
    );
    const launch = await until(async () => (await readLaunches(logDir))[0], 'the launch');
    const notified = (await readEvents(launch)).filter(
      (e) => e.event === 'hook' && e.name === 'Notification',
    );
    expect(notified).toHaveLength(1);
  });

  it('reads working again when the transcript moves after a blocked report', async () => {
    const child = await startChild('waiter', { steps: [{ reply: 'ready' }] });
    await until(async () => ((await stateOf('waiter')) === 'idle' ? true : undefined), 'idle');
    const transcript = join(box.root, 'waiter.jsonl');
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
    await cli(child, ['hook', 'state', '--harness', 'claude', '--event', 'Notification'], idleNotice);
    await utimes(transcript, old, old);
    expect(await stateOf('waiter')).toBe('idle');
  });

  it('refuses another harness or event in one line, and outside tmux records nothing', async () => {
    const codex = await cli(lead, ['hook', 'state', '--harness', 'codex', '--event', 'Notification'], {});
    expect(codex).toMatchObject({
      code: 2,
      stderr: 'dogsled: hook state: --harness must be claude, got "codex"\n',
    });
    const stop = await cli(lead, ['hook', 'state', '--harness', 'claude', '--event', 'Stop\u001b[2J'], {});
    expect(stop).toMatchObject({ code: 2 });
    expect(stop.stderr).not.toContain('\u001b');
    const outside = await cli(null, ['hook', 'state', '--harness', 'claude', '--event', 'Notification'], {
      notification_type: 'permission_prompt',
    });
    expect(outside).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await readdir(join(box.state, 'agent-reports')).catch(() => [])).toEqual([]);
  });
});
