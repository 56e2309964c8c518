// The plugins as the harnesses run them: the fake Claude Code loads plugins/dogsled as a plugin dir,
// the fake Codex reads the plugin's Codex hooks, and each runs the real `dogsled hook` commands with
// the JSON its harness sends. A message reaches the agent at its next prompt or stop, the turn goes
// on with it, and the next stop (stop_hook_active) is silent.

import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeAgentEvent,
  fakeAgentEnv,
  type RunningFakeAgent,
  readEvents,
  readLaunches,
  readTranscript,
  startFakeAgent,
} from '../../fakes/agents/harness.js';
import { CLI, ROOT } from '../../helpers/cli.js';
import { type InboxBox, inboxPair, type PaneRef } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';

const PLUGIN = join(ROOT, 'plugins', 'dogsled');
let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;
let logDir: string;
let bin: string;
const running: RunningFakeAgent[] = [];

beforeEach(async () => {
  ({ t, lead, child } = await inboxPair());
  logDir = join(t.box.root, 'agent-log');
  // `dogsled` on PATH is this build, as the plugins expect the installed binary.
  bin = join(t.box.root, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'dogsled'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(join(bin, 'dogsled'), 0o755);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((agent) => agent.stop()));
  await t.close();
});

function agentEnv(): NodeJS.ProcessEnv {
  const base = t.envOf(child);
  return fakeAgentEnv({ ...base, PATH: `${bin}:${base.PATH ?? ''}` }, { home: t.box.home, logDir });
}

function start(kind: 'claude' | 'codex', args: string[]): RunningFakeAgent {
  const agent = startFakeAgent(kind, args, { cwd: t.box.home, env: agentEnv() });
  running.push(agent);
  return agent;
}

/** A script step that sends from the lead's pane to the child while the child works. */
function sendFromLead(text: string): { run: string } {
  return { run: `HERDR_PANE_ID=${lead.pane} dogsled send ${child.pane} --message '${text}'` };
}

async function stopHooks(): Promise<FakeAgentEvent[]> {
  const [launch] = await readLaunches(logDir);
  if (!launch) return [];
  return (await readEvents(launch)).filter((e) => e.event === 'hook' && e.name === 'Stop');
}

function userTexts(records: Record<string, unknown>[]): string[] {
  return records.flatMap((r) => {
    if (r.type === 'user') {
      const content = (r.message as { content: unknown }).content;
      return typeof content === 'string' ? [content] : [];
    }
    const payload = r.payload as { role?: string; content?: { text: string }[] } | undefined;
    return payload?.role === 'user' ? (payload.content ?? []).map((c) => c.text) : [];
  });
}

describe('the Claude Code plugin', () => {
  it('registers at session start and hands a message to the next prompt as context', async () => {
    const agent = start('claude', ['--plugin-dir', PLUGIN]);
    await waitFor('idle', () => (agent.output().includes('(idle) >') ? true : undefined));
    const inbox = await waitFor('the reader', async () => (await t.inbox(child))?.reader ?? undefined);
    expect(inbox).toMatchObject({ harness: 'claude', pane: child.pane });

    const sent = await t.cli(lead, ['send', child.pane, '--message', 'Also cover the empty case.']);
    expect(sent.code).toBe(0);
    agent.type('fake-agent: {"steps":[{"reply":"ok"}]}');
    const [launch] = await readLaunches(logDir);
    const context = await waitFor('the message as context', async () => {
      const records = await readTranscript(launch!.transcript!).catch(() => []);
      const attached = records
        .filter((r) => r.type === 'attachment')
        .flatMap((r) => (r.attachment as { content: string[] }).content);
      return attached.find((text) => text.includes('Also cover the empty case.'));
    });
    expect(context).toMatch(/^dogsled inbox: 1 new record/);
    expect((await t.inbox(child)).records[0].state).toBe('delivered');
  });

  it('continues the turn at Stop with a message that arrived during it, then stops quietly', async () => {
    const script = {
      steps: [sendFromLead('Please also update the README.'), { reply: 'first answer' }],
      on_stop_block: [{ reply: 'README updated too.' }],
    };
    const agent = start('claude', ['--plugin-dir', PLUGIN, `fake-agent: ${JSON.stringify(script)}`]);
    await waitFor('two stops', async () => ((await stopHooks()).length >= 2 ? true : undefined), {
      timeoutMs: 20_000,
    });
    await waitFor('idle', () => (agent.output().includes('(idle) >') ? true : undefined));
    const stops = await stopHooks();
    expect(stops.map((s) => (s.input as { stop_hook_active: boolean }).stop_hook_active)).toEqual([
      false,
      true,
    ]);
    expect(stops.map((s) => s.block)).toEqual([
      expect.stringContaining('Please also update the README.'),
      null,
    ]);
    const [launch] = await readLaunches(logDir);
    const said = userTexts(await readTranscript(launch!.transcript!));
    expect(said.some((text) => text.includes('Please also update the README.'))).toBe(true);
  });
});

describe('the Codex plugin', () => {
  it('runs the Codex hooks with the Codex harness and delivers at Stop', async () => {
    await mkdir(join(t.box.home, '.codex'), { recursive: true });
    await copyFile(join(PLUGIN, 'hooks', 'codex-hooks.json'), join(t.box.home, '.codex', 'hooks.json'));
    const script = {
      steps: [sendFromLead('Rebase on main first.'), { reply: 'ok' }],
      on_stop_block: [{ reply: 'Rebased.' }],
    };
    const agent = start('codex', ['-m', 'gpt-5', `fake-agent: ${JSON.stringify(script)}`]);
    await waitFor('two stops', async () => ((await stopHooks()).length >= 2 ? true : undefined), {
      timeoutMs: 20_000,
    });
    await waitFor('idle', () => (agent.output().includes('(idle) >') ? true : undefined));
    expect((await t.inbox(child)).reader.harness).toBe('codex');
    const [launch] = await readLaunches(logDir);
    const said = userTexts(await readTranscript(launch!.transcript!));
    expect(said.some((text) => text.includes('Rebase on main first.'))).toBe(true);
    expect((await stopHooks()).at(-1)?.block).toBeNull();
  });
});
