// Shared set-up of the tmux agent tests: a sandbox whose HOME has the dogsled plugin's Claude hooks
// in its settings and a `dogsled` on PATH that runs this build, and a private tmux server whose
// panes find it and the fake agents. The base session's pane is the lead's.

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { KNOWN_SHELLS } from '../../../service/core/cleanup/pane-rule.js';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { FAKE_AGENTS_BIN } from '../../fakes/agents/harness.js';
import { CLI, ROOT, type Sandbox, sandbox } from '../../helpers/cli.js';
import { startTmuxServer, type TmuxServer } from '../../helpers/tmux-server.js';
import { waitFor } from '../../helpers/wait.js';

export interface TmuxAgentBox {
  box: Sandbox;
  server: TmuxServer;
  port: TerminalPort;
  logDir: string;
  /** The base session's pane. */
  lead: string;
}

/** A `dogsled` on PATH that runs this build; returns its directory. */
export async function dogsledBin(root: string): Promise<string> {
  const bin = join(root, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'dogsled'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
  await chmod(join(bin, 'dogsled'), 0o755);
  return bin;
}

/** The dogsled plugin's hooks as Claude Code reads them from the user's settings. */
export async function installPluginHooks(home: string): Promise<void> {
  const plugin = JSON.parse(await readFile(join(ROOT, 'plugins', 'dogsled', 'hooks', 'hooks.json'), 'utf8'));
  await mkdir(join(home, '.claude'), { recursive: true });
  await writeFile(join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: plugin.hooks }));
}

/** Per test: the sandbox, the server (socket `name`) and the lead's pane; all gone afterwards. */
export function tmuxAgentBox(name: string, extraEnv: Record<string, string> = {}): TmuxAgentBox {
  const t = {} as TmuxAgentBox;
  beforeEach(async () => {
    t.box = await sandbox();
    t.logDir = join(t.box.root, 'agent-log');
    const bin = await dogsledBin(t.box.root);
    await installPluginHooks(t.box.home);
    await mkdir(t.box.state, { recursive: true });
    t.server = await startTmuxServer({
      dir: t.box.root,
      name,
      env: {
        PATH: `${bin}:${FAKE_AGENTS_BIN}:${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: t.box.home,
        DOGSLED_STATE: t.box.state,
        FAKE_AGENT_LOG_DIR: t.logDir,
        ...extraEnv,
      },
    });
    t.lead = (await t.server.tmux('display-message', '-p', '-t', 'base:', '#{pane_id}')).trim();
    t.port = await openTerminal({ env: t.server.env, home: t.box.home });
  });
  afterEach(async () => {
    await t.server?.kill();
    await t.box?.cleanup();
  });
  return t;
}

/** A fake Claude named `name` in a new window's shell, running `script` as its first prompt. */
export async function startClaudeChild(t: TmuxAgentBox, name: string, script: object): Promise<string> {
  // Not in HOME: there the user's settings would also be the project's, and every hook run twice.
  const work = join(t.box.root, 'work');
  await mkdir(work, { recursive: true });
  const pane = (await t.port.createTab({ cwd: work })).root_pane.pane_id;
  // Until the shell alone is in the foreground: right after the window opens, tmux's child may not
  // have exec'd the shell yet, or the shell's start-up files may still be running a program.
  await waitFor('the shell', async () => {
    const fg = (await t.port.processInfo(pane)).foreground_processes;
    return (fg.length === 1 && KNOWN_SHELLS.has((fg[0]?.name ?? '').replace(/^-/, ''))) || undefined;
  });
  await t.port.startAgent({
    name,
    kind: 'claude',
    paneId: pane,
    args: [`fake-agent: ${JSON.stringify(script)}`],
  });
  return pane;
}
