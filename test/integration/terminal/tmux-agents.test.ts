// Agents in a real tmux, the port verbs the `agent` command uses: a start replaces the pane's idle
// shell with the agent's own argv (nothing typed), refusals come first and touch nothing, and the
// agent's state comes from its harness's hooks (`dogsled hook …` in that pane) and its transcript.

import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { FAKE_AGENTS_BIN, readLaunches } from '../../fakes/agents/harness.js';
import { runCli } from '../../helpers/cli.js';
import { startTmuxServer, type TmuxServer } from '../../helpers/tmux-server.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { failure } from './terminal-port-suite.js';

let root: string;
let server: TmuxServer;
let port: TerminalPort;
let logDir: string;
let state: string;

beforeAll(async () => {
  root = await tempDir('dogsled-tmux-agents-');
  const home = join(root, 'home');
  logDir = join(root, 'agents');
  state = join(root, 'state');
  await Promise.all([home, logDir, state].map((path) => mkdir(path, { recursive: true })));
  server = await startTmuxServer({
    dir: root,
    name: 'tmux.sock',
    env: {
      PATH: `${FAKE_AGENTS_BIN}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      FAKE_AGENT_LOG_DIR: logDir,
      DOGSLED_STATE: state,
    },
  });
  port = await openTerminal({ env: server.env, home });
}, 30_000);

afterAll(async () => {
  await server?.kill();
  // The fake agents may still be writing their last records as their panes go.
  await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
});

async function shellPane() {
  const pane = (await port.createWorkspace({ cwd: root })).root_pane;
  await waitFor(
    'the shell',
    async () => (await port.processInfo(pane.pane_id)).foreground_processes.length > 0 || undefined,
  );
  return pane;
}

function hook(paneId: string, event: string, stdin: object) {
  const env = { ...server.env, TMUX_PANE: paneId, DOGSLED_STATE: state, HOME: join(root, 'home') };
  return runCli(['hook', 'inbox', '--harness', 'claude', '--event', event], env, {
    input: JSON.stringify(stdin),
  });
}

describe('agents in tmux', () => {
  it('starts the agent as the pane program with its arguments whole, and refuses a busy pane or a taken name', async () => {
    const pane = await shellPane();
    const args = ['--model', 'alias/sol', "it's one 'argument' with $HOME;"];
    const started = await port.startAgent({ name: 'rev', kind: 'claude', paneId: pane.pane_id, args });
    expect(started.argv).toEqual(['claude', ...args]);
    expect(started.agent).toMatchObject({ name: 'rev', agent: 'claude', pane_id: pane.pane_id });
    const launch = await waitFor('the fake claude launch', async () =>
      (await readLaunches(logDir).catch(() => [])).find((l) => l.argv.includes(args[2] as string)),
    );
    expect(launch.argv).toEqual(args);
    expect(
      (await failure(port.startAgent({ name: 'rev2', kind: 'claude', paneId: pane.pane_id }))).code,
    ).toBe('agent_pane_busy');
    const other = await shellPane();
    expect((await failure(port.startAgent({ name: 'rev', kind: 'codex', paneId: other.pane_id }))).code).toBe(
      'agent_name_taken',
    );
    expect(
      (await failure(port.startAgent({ name: 'Bad Name', kind: 'codex', paneId: other.pane_id }))).code,
    ).toBe('invalid_agent_name');
    await port.runLine(other.pane_id, 'sleep 30');
    await waitFor(
      'sleep in the foreground',
      async () =>
        (await port.processInfo(other.pane_id)).foreground_processes.some((p) => p.name === 'sleep') ||
        undefined,
    );
    expect(
      (await failure(port.startAgent({ name: 'busy', kind: 'codex', paneId: other.pane_id }))).code,
    ).toBe('agent_pane_busy');
  });

  it("takes the agent's state from its hooks, and its transcript's activity after an idle report", async () => {
    const pane = await shellPane();
    await port.startAgent({ name: 'hooked', kind: 'claude', paneId: pane.pane_id });
    expect((await port.getAgent('hooked')).agent_status).toBe('unknown');
    const transcript = join(root, 'hooked.jsonl');
    await writeFile(transcript, '{}\n');
    const session = { session_id: 's-1', transcript_path: transcript };
    expect((await hook(pane.pane_id, 'UserPromptSubmit', session)).code).toBe(0);
    const working = await port.getAgent('hooked');
    expect(working.agent_status).toBe('working');
    expect(working.agent_session).toMatchObject({ kind: 'path', value: transcript });
    const old = new Date(Date.now() - 60_000);
    await utimes(transcript, old, old);
    expect((await hook(pane.pane_id, 'Stop', session)).code).toBe(0);
    expect((await port.getAgent('hooked')).agent_status).toBe('idle');
    const later = new Date(Date.now() + 60_000);
    await utimes(transcript, later, later);
    expect((await port.getAgent('hooked')).agent_status).toBe('working');
    const waited = port.waitAgent('hooked', { until: ['idle'], timeoutMs: 20_000 });
    await utimes(transcript, old, old);
    expect((await waited).agent_status).toBe('idle');
  });
});
