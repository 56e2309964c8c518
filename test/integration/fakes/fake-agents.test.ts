// The fake claude/codex/pi executables behave like their harnesses where the product looks:
// launch arguments, task files, transcripts in the standard places, scripted steps. Their
// transcripts are read back through the product's own discovery and reader.

import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverTranscript, readTranscriptFacts } from '../../../service/probe/transcripts/index.js';
import {
  claudeTranscriptPath,
  type FakeStep,
  fakeAgentEnv,
  findTranscripts,
  type RunningFakeAgent,
  readEvents,
  readLaunches,
  readTranscript,
  reportedStates,
  startFakeAgent,
  waitForEvent,
  waitForLaunch,
  writeScriptFile,
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
  root = await tempDir('dogsled-fake-agents-');
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

function start(kind: 'claude' | 'codex' | 'pi', args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const agent = startFakeAgent(kind, args, { cwd: work, env: { ...env, ...extraEnv } });
  running.push(agent);
  return agent;
}

const task = (name: string, script: FakeStep[]) =>
  writeTaskFile(join(work, 'launches', `${name}.task.md`), { script });

const idle = (agent: RunningFakeAgent) =>
  waitFor('idle', () => (agent.output().includes('(idle) >') ? true : undefined));

describe('fake claude', () => {
  it('records its exact argv and cwd, honours --session-id and writes the transcript the product finds', async () => {
    const taskPath = await task('c1', [{ work_ms: 150 }, { reply: 'All done.' }]);
    const id = '3f2a7c1e-1111-4a4a-8b8b-123456789abc';
    const args = [
      '--model',
      'claude-opus-4-1',
      '--session-id',
      id,
      '--brand-new-flag',
      `Read the task in ${taskPath}`,
    ];
    const agent = start('claude', args);
    await idle(agent);

    const [launch] = await readLaunches(logDir);
    expect(launch).toMatchObject({
      kind: 'claude',
      argv: args,
      cwd: work,
      session_id: id,
      task_files: [taskPath],
    });
    expect(launch?.launch.unknown).toEqual(['--brand-new-flag']);
    const path = claudeTranscriptPath(home, work, id);
    expect(launch?.transcript).toBe(path);
    expect(await findTranscripts(home, 'claude')).toEqual([path]);

    const found = await discoverTranscript({ agent: 'claude', session: { kind: 'id', value: id }, home });
    expect(found.path).toBe(path);
    expect(await readTranscriptFacts(path, 'claude')).toMatchObject({
      model: 'claude-opus-4-1',
      activity: { kind: 'message', text: 'All done.' },
    });
    const records = await readTranscript(path);
    expect(records[0]).toMatchObject({ type: 'user', sessionId: id, cwd: work });
    expect(records.filter((r) => r.type === 'assistant').length).toBeGreaterThan(2);
  });

  it('answers typed prompts at its idle prompt, one turn each', async () => {
    const agent = start('claude', []);
    await idle(agent);
    agent.type('what is up?');
    await waitFor('a reply', () => (agent.output().includes('● OK: what is up?') ? true : undefined));
    agent.type('fake-agent: {"steps":[{"run":"echo typed-run"},{"reply":"ran it"}]}');
    await waitFor('the scripted reply', () => (agent.output().includes('● ran it') ? true : undefined));
    const [launch] = await readLaunches(logDir);
    expect(await reportedStates(launch!)).toEqual(['idle', 'working', 'idle', 'working', 'idle']);
    const run = (await readEvents(launch!)).find((e) => e.event === 'run');
    expect(run).toMatchObject({ code: 0, output: 'typed-run\n' });
  });

  it('takes --append-system-prompt as text, even when it names a file; only -file reads one', async () => {
    const contract = await writeTaskFile(join(work, 'launches', 'c9.contract.md'), { text: 'Contract.' });
    const agent = start('claude', [
      '--append-system-prompt',
      contract,
      '--append-system-prompt-file',
      contract,
      '-p',
      'hi',
    ]);
    await agent.exited;
    const [launch] = await readLaunches(logDir);
    expect(launch?.system_prompts).toEqual([
      { arg: contract, text: contract, file: false },
      { arg: contract, text: expect.stringContaining('Contract.'), file: true },
    ]);
  });
});

describe('fake codex', () => {
  it('works in --cd, takes -m and writes a dated rollout the product resolves by id', async () => {
    const elsewhere = join(root, 'elsewhere');
    await mkdir(elsewhere);
    const taskPath = await task('x1', [{ run: 'pwd' }, { reply: 'Reviewed.' }]);
    const agent = start('codex', [
      '-m',
      'gpt-5',
      '-c',
      'approval_policy="never"',
      '--cd',
      elsewhere,
      `Task: ${taskPath}`,
    ]);
    await idle(agent);
    const [launch] = await readLaunches(logDir);
    expect(launch?.cwd).toBe(elsewhere);
    expect(launch?.transcript).toMatch(
      /\/\.codex\/sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-[\dT-]+-[0-9a-f-]{36}\.jsonl$/,
    );
    const found = await discoverTranscript({
      agent: 'codex',
      session: { kind: 'id', value: launch!.session_id },
      home,
    });
    expect(found.path).toBe(launch?.transcript);
    expect(await readTranscriptFacts(launch!.transcript!, 'codex')).toMatchObject({
      model: 'gpt-5',
      activity: { kind: 'message', text: 'Reviewed.' },
    });
    const records = await readTranscript(launch!.transcript!);
    expect(records[0]).toMatchObject({
      type: 'session_meta',
      payload: { id: launch?.session_id, cwd: elsewhere },
    });
    const output = records.find(
      (r) =>
        (r.payload as { type?: string }).type === 'function_call_output' &&
        JSON.stringify(r).includes(elsewhere),
    );
    expect(output).toBeDefined();
  });

  it('exits after the script with codex exec', async () => {
    const taskPath = await task('x2', [{ reply: 'once' }]);
    const agent = start('codex', ['exec', `Do ${taskPath}`]);
    expect(await agent.exited).toEqual({ code: 0, signal: null });
  });
});

describe('fake pi', () => {
  it('reads @file tasks and system prompt files and writes its session where --session says', async () => {
    const taskPath = await task('p1', [{ reply: 'Pi finished.' }]);
    const contract = join(work, 'launches', 'p1.contract.md');
    await writeTaskFile(contract, { text: 'You are a child agent.' });
    const session = join(root, 'sessions', 'p1.jsonl');
    const args = [
      '--model',
      'alias/sol',
      '--thinking',
      'medium',
      '--append-system-prompt',
      contract,
      '--session',
      session,
      `@${taskPath}`,
    ];
    const agent = start('pi', args);
    await idle(agent);
    const [launch] = await readLaunches(logDir);
    expect(launch).toMatchObject({ transcript: session, task_files: [taskPath], model: 'alias/sol' });
    expect(launch?.system_prompts[0]).toMatchObject({ arg: contract, file: true });
    expect(launch?.system_prompts[0]?.text).toContain('You are a child agent.');
    const found = await discoverTranscript({ agent: 'pi', session: { kind: 'path', value: session }, home });
    expect(found.path).toBe(session);
    expect(await readTranscriptFacts(session, 'pi')).toMatchObject({
      model: 'alias/sol',
      activity: { kind: 'message', text: 'Pi finished.' },
    });
    const records = await readTranscript(session);
    expect(records[0]).toMatchObject({ type: 'session', version: 3, id: launch?.session_id, cwd: work });
    expect(records).toContainEqual(
      expect.objectContaining({ type: 'thinking_level_change', thinkingLevel: 'medium' }),
    );
    const first = records.find((r) => r.type === 'message') as { message: { content: { text: string }[] } };
    expect(first.message.content[0]?.text).toContain(`<file name="${taskPath}">`);
  });

  it('writes nothing before its first assistant message, as Pi does', async () => {
    const taskPath = await task('p2', [{ hang: true }]);
    const agent = start('pi', [`@${taskPath}`]);
    const launch = await waitForLaunch(logDir);
    await waitForEvent(launch, (e) => e.event === 'step' && 'hang' in (e.step as object));
    expect(agent.output()).toContain('hung');
    const found = await discoverTranscript({
      agent: 'pi',
      session: { kind: 'path', value: launch.transcript! },
      home,
    });
    expect(found).toEqual({ path: null, reason: 'absent' });
    expect(launch.transcript).toMatch(
      /\/\.pi\/agent\/sessions\/--.+--\/\d{4}-\d{2}-\d{2}T[\d-]+Z_[0-9a-f-]{36}\.jsonl$/,
    );
  });
});

describe('resumed sessions', () => {
  it('append to the same transcript for claude --resume, codex resume and pi --session', async () => {
    const id = '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d';
    await start('claude', ['-p', '--session-id', id, 'fake-agent: [{"reply":"one"}]']).exited;
    await start('claude', ['-p', '--resume', id, 'fake-agent: [{"reply":"two"}]']).exited;
    await start('codex', ['exec', 'fake-agent: [{"reply":"three"}]']).exited;
    const codexId = (await readLaunches(logDir))[2]!.session_id;
    await start('codex', ['exec', 'resume', codexId, 'fake-agent: [{"reply":"four"}]']).exited;
    const piSession = join(root, 'pi.jsonl');
    await start('pi', ['-p', '--session', piSession, 'fake-agent: [{"reply":"five"}]']).exited;
    await start('pi', ['-p', '--session', piSession, 'fake-agent: [{"reply":"six"}]']).exited;

    const launches = await readLaunches(logDir);
    expect(launches.map((l) => l.session_source)).toEqual([
      'startup',
      'resume',
      'startup',
      'resume',
      'startup',
      'resume',
    ]);
    expect(launches[1]?.transcript).toBe(launches[0]?.transcript);
    expect(launches[3]?.transcript).toBe(launches[2]?.transcript);
    expect(launches[5]?.session_id).toBe(launches[4]?.session_id);
    expect((await readTranscriptFacts(launches[1]!.transcript!, 'claude')).activity?.text).toBe('two');
    expect((await readTranscriptFacts(launches[3]!.transcript!, 'codex')).activity?.text).toBe('four');
    const pi = await readTranscript(piSession);
    expect(pi.filter((r) => r.type === 'session')).toHaveLength(1);
    expect((await readTranscriptFacts(piSession, 'pi')).activity?.text).toBe('six');
  });
});

describe('scripts', () => {
  it('append transcript lines while working, then stop changing the transcript on hang', async () => {
    const id = '00000000-0000-4000-8000-000000000001';
    const taskPath = await task('s1', [{ work_ms: 300 }, { hang: true }]);
    const agent = start('claude', ['--session-id', id, `Read ${taskPath}`]);
    const launch = await waitForLaunch(logDir);
    await waitForEvent(launch, (e) => e.event === 'step' && 'hang' in (e.step as object));
    const lines = await readTranscript(launch.transcript!);
    const toolCalls = lines.filter((r) => JSON.stringify(r).includes('echo working'));
    expect(toolCalls.length).toBeGreaterThanOrEqual(3);
    const size = (await stat(launch.transcript!)).size;
    // A working agent would have written several lines in this time.
    await sleep(400);
    expect((await stat(launch.transcript!)).size).toBe(size);
    expect(agent.child.exitCode).toBeNull();
    expect(await reportedStates(launch)).toEqual(['working']);
  });

  it('block on ask until a line is typed, then carry on', async () => {
    const taskPath = await task('s2', [{ ask: 'Merge to main?' }, { reply: 'Merged.' }]);
    const agent = start('claude', [`Read ${taskPath}`]);
    const launch = await waitForLaunch(logDir);
    await waitForEvent(launch, (e) => e.event === 'state' && e.state === 'blocked');
    expect(agent.output()).toContain('? Merge to main?');
    agent.type('yes');
    await idle(agent);
    const states = (await readEvents(launch)).filter((e) => e.event === 'state');
    expect(states.map((e) => [e.state, e.message])).toEqual([
      ['working', null],
      ['blocked', 'Merge to main?'],
      ['working', null],
      ['idle', null],
    ]);
    const users = (await readTranscript(launch.transcript!)).filter((r) => r.type === 'user');
    expect(users.at(-1)).toMatchObject({ message: { content: 'yes' } });
  });

  it('crash with the given code and stop with 0', async () => {
    const crashing = start('claude', [`Read ${await task('s3', [{ crash: 7 }])}`]);
    expect((await crashing.exited).code).toBe(7);
    const stopping = start('pi', [`@${await task('s4', [{ reply: 'bye' }, { stop: true }])}`]);
    expect((await stopping.exited).code).toBe(0);
  });

  it('come from $FAKE_AGENT_SCRIPT when the launch prompt has none', async () => {
    const script = await writeScriptFile(join(root, 'script.json'), [{ reply: 'from the env script' }]);
    const agent = start('claude', ['-p', 'no script here'], { FAKE_AGENT_SCRIPT: script });
    expect((await agent.exited).code).toBe(0);
    expect(agent.output()).toContain('● from the env script');
  });

  it('that are broken stop the agent with exit 2 and say why', async () => {
    const agent = start('claude', ['fake-agent: {"steps":[{"dance":true}]}']);
    expect((await agent.exited).code).toBe(2);
    expect(agent.output()).toContain('must have exactly one of reply');
  });

  it('keep several agents of one kind apart in one environment', async () => {
    const a = start('claude', [`Read ${await task('a', [{ reply: 'I am A' }])}`]);
    const b = start('claude', [`Read ${await task('b', [{ reply: 'I am B' }])}`]);
    await Promise.all([idle(a), idle(b)]);
    const launches = await readLaunches(logDir);
    expect(launches).toHaveLength(2);
    const texts = await Promise.all(
      launches.map(async (l) => (await readTranscriptFacts(l.transcript!, 'claude')).activity?.text),
    );
    expect(texts.sort()).toEqual(['I am A', 'I am B']);
    expect(new Set(launches.map((l) => l.transcript)).size).toBe(2);
  });
});
