// The fake agents run hooks from the files their harnesses read, with the harness's stdin JSON,
// and honour the outputs the product's hooks rely on: added context and Stop continuations.

import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  commandHooks,
  fakeAgentEnv,
  type RunningFakeAgent,
  readEvents,
  readLaunches,
  readTranscript,
  startFakeAgent,
  writeClaudeHooks,
  writeCodexHooks,
  writePiFakeHooks,
  writeTaskFile,
} from '../../fakes/agents/harness.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

let root: string;
let home: string;
let work: string;
let logDir: string;
let env: NodeJS.ProcessEnv;
const running: RunningFakeAgent[] = [];

beforeEach(async () => {
  root = await tempDir('dogsled-fake-hooks-');
  home = join(root, 'home');
  work = join(root, 'work');
  logDir = join(root, 'log');
  await mkdir(home, { recursive: true });
  await mkdir(work, { recursive: true });
  const base = { ...process.env };
  for (const key of Object.keys(base)) if (key.startsWith('HERDR_')) delete base[key];
  env = fakeAgentEnv(base, { home, logDir });
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((agent) => agent.stop()));
  await rm(root, { recursive: true, force: true });
});

async function runToIdle(kind: 'claude' | 'codex' | 'pi', args: string[]) {
  const agent = startFakeAgent(kind, args, { cwd: work, env });
  running.push(agent);
  await waitFor('idle', () => (agent.output().includes('(idle) >') ? true : undefined));
  const [launch] = await readLaunches(logDir);
  return { agent, launch: launch!, events: await readEvents(launch!) };
}

/** A hook command that saves its stdin as <dir>/<event>-<n>.json and prints `output`. */
function saving(event: string, output = '') {
  const dump = join(root, 'stdin');
  return `mkdir -p ${dump}; cat > ${dump}/${event}-$(ls ${dump} | wc -l).json; printf '%s' '${output}'`;
}

async function savedInputs(event: string): Promise<Record<string, unknown>[]> {
  const { readdir } = await import('node:fs/promises');
  const dir = join(root, 'stdin');
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => n.startsWith(`${event}-`))
    .sort();
  return Promise.all(names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8'))));
}

/** A Stop hook that blocks once (a marker file makes the second run let the agent stop). */
function blockOnce(reason: string) {
  const marker = join(root, 'blocked-once');
  return `${saving('Stop')}; test -f ${marker} || { touch ${marker}; echo '{"decision":"block","reason":"${reason}"}'; }`;
}

describe('Claude Code hooks', () => {
  it('get the stdin fields Claude Code sends, and their context lands in the transcript', async () => {
    await writeClaudeHooks(
      home,
      commandHooks({
        SessionStart: saving('SessionStart', 'plain start context'),
        UserPromptSubmit: saving(
          'UserPromptSubmit',
          '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"To land: child-a"}}',
        ),
        Stop: saving('Stop'),
      }),
    );
    const taskPath = await writeTaskFile(join(work, 'launches', 't.task.md'), {
      script: [{ reply: 'done' }],
    });
    const { launch } = await runToIdle('claude', [`Read ${taskPath}`]);
    const common = { session_id: launch.session_id, transcript_path: launch.transcript, cwd: work };
    expect(await savedInputs('SessionStart')).toEqual([
      expect.objectContaining({ ...common, hook_event_name: 'SessionStart', source: 'startup' }),
    ]);
    expect(await savedInputs('UserPromptSubmit')).toEqual([
      expect.objectContaining({ ...common, hook_event_name: 'UserPromptSubmit', prompt: `Read ${taskPath}` }),
    ]);
    expect(await savedInputs('Stop')).toEqual([
      expect.objectContaining({ ...common, hook_event_name: 'Stop', stop_hook_active: false }),
    ]);
    const attachments = (await readTranscript(launch.transcript!)).filter((r) => r.type === 'attachment');
    expect(attachments.map((r) => (r.attachment as { content: string[] }).content)).toEqual([
      ['plain start context'],
      ['To land: child-a'],
    ]);
  });

  it('continue the turn when Stop blocks, then run Stop again with stop_hook_active', async () => {
    await writeClaudeHooks(home, commandHooks({ Stop: blockOnce('Land child-a before stopping.') }));
    const taskPath = await writeTaskFile(join(work, 'launches', 't.task.md'), {
      script: {
        steps: [{ reply: 'first answer' }],
        on_stop_block: [{ run: 'echo landing' }, { reply: 'Landed.' }],
      },
    });
    const { launch, events } = await runToIdle('claude', [`Read ${taskPath}`]);
    expect((await savedInputs('Stop')).map((input) => input.stop_hook_active)).toEqual([false, true]);
    const records = await readTranscript(launch.transcript!);
    const said = records
      .filter((r) => r.type === 'user' || r.type === 'assistant')
      .map((r) => (r.message as { content: unknown }).content)
      .filter((c): c is string => typeof c === 'string' || Array.isArray(c))
      .map((c) => (typeof c === 'string' ? c : ((c[0] as { text?: string }).text ?? '')));
    expect(said).toContain('Land child-a before stopping.');
    expect(said.indexOf('Land child-a before stopping.')).toBeLessThan(said.indexOf('Landed.'));
    expect(events.filter((e) => e.event === 'state').map((e) => e.state)).toEqual(['working', 'idle']);
  });

  it('treat exit code 2 from Stop as a block with stderr as the reason', async () => {
    const marker = join(root, 'once');
    await writeClaudeHooks(
      home,
      commandHooks({ Stop: `test -f ${marker} || { touch ${marker}; echo 'stderr reason' >&2; exit 2; }` }),
    );
    const { launch } = await runToIdle('claude', ['fake-agent: {"steps":[{"reply":"hi"}]}']);
    const users = (await readTranscript(launch.transcript!)).filter((r) => r.type === 'user');
    expect(users.map((r) => (r.message as { content: unknown }).content)).toContain('stderr reason');
  });

  it('drop a prompt that UserPromptSubmit blocks', async () => {
    await writeClaudeHooks(
      home,
      commandHooks({ UserPromptSubmit: `echo '{"decision":"block","reason":"no"}'` }),
    );
    const { agent, events } = await runToIdle('claude', []);
    agent.type('please do it');
    await waitFor('the block', () =>
      agent.output().includes('prompt blocked by hook: no') ? true : undefined,
    );
    expect(events.filter((e) => e.event === 'state').map((e) => e.state)).toEqual(['idle']);
  });

  it('come from --settings and from a --plugin-dir hooks file with CLAUDE_PLUGIN_ROOT', async () => {
    const plugin = join(root, 'plugin');
    await mkdir(join(plugin, 'hooks'), { recursive: true });
    await writeFile(
      join(plugin, 'hooks', 'hooks.json'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder Claude Code substitutes
      JSON.stringify({ hooks: commandHooks({ SessionStart: 'echo "plugin at ${CLAUDE_PLUGIN_ROOT}"' }) }),
    );
    const settings = JSON.stringify({ hooks: commandHooks({ SessionStart: 'echo from-settings-flag' }) });
    const { launch } = await runToIdle('claude', ['--settings', settings, '--plugin-dir', plugin]);
    const contexts = (await readTranscript(launch.transcript!))
      .filter((r) => r.type === 'attachment')
      .flatMap((r) => (r.attachment as { content: string[] }).content);
    expect(contexts).toEqual(['from-settings-flag', `plugin at ${plugin}`]);
  });
});

describe('Codex hooks', () => {
  it('come from ~/.codex/hooks.json with model and turn_id, and a Stop block continues the turn', async () => {
    await writeCodexHooks(
      home,
      commandHooks({
        UserPromptSubmit: saving('UserPromptSubmit', 'codex context'),
        Stop: blockOnce('Check the board.'),
      }),
    );
    const { launch } = await runToIdle('codex', ['-m', 'gpt-5', 'fake-agent: {"steps":[{"reply":"ok"}]}']);
    const [submit] = await savedInputs('UserPromptSubmit');
    expect(submit).toMatchObject({
      hook_event_name: 'UserPromptSubmit',
      model: 'gpt-5',
      session_id: launch.session_id,
    });
    expect(typeof submit?.turn_id).toBe('string');
    const stops = await savedInputs('Stop');
    expect(stops.map((s) => [s.stop_hook_active, s.turn_id === submit?.turn_id])).toEqual([
      [false, true],
      [true, true],
    ]);
    const records = await readTranscript(launch.transcript!);
    const payloads = records.map(
      (r) => r.payload as { type?: string; role?: string; content?: { text: string }[] },
    );
    expect(payloads.find((p) => p.role === 'developer')?.content?.[0]?.text).toBe('codex context');
    expect(payloads.filter((p) => p.role === 'user').map((p) => p.content?.[0]?.text)).toContain(
      'Check the board.',
    );
  });
});

describe('Pi fake hooks', () => {
  it('run from ~/.pi/agent/fake-hooks.json: context before the turn, a continuation before settling', async () => {
    const marker = join(root, 'settled-once');
    await writePiFakeHooks(home, {
      before_agent_start: [`${saving('before_agent_start')}; echo 'Pi context'`],
      agent_before_settle: [`test -f ${marker} || { touch ${marker}; echo 'Reminder: land child-a.'; }`],
      agent_end: [saving('agent_end')],
    });
    const { launch } = await runToIdle('pi', ['fake-agent: {"steps":[{"reply":"ok"}]}']);
    const [start] = await savedInputs('before_agent_start');
    expect(start).toMatchObject({ event: 'before_agent_start', session_file: launch.transcript, cwd: work });
    expect(await savedInputs('agent_end')).toHaveLength(1);
    const custom = (await readTranscript(launch.transcript!)).filter((r) => r.type === 'custom_message');
    expect(custom.map((r) => r.content)).toEqual(['Pi context', 'Reminder: land child-a.']);
  });
});
