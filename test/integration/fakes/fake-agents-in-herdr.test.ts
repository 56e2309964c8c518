// End to end through the fake Herdr: agent.start types the launch into a real pane shell, the fake
// agent runs there and reports itself, and the session Herdr then shows resolves, through the
// product's transcript discovery and reader, to the transcript the agent wrote.

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverTranscript, readTranscriptFacts } from '../../../service/probe/transcripts/index.js';
import {
  FAKE_AGENTS_BIN,
  readLaunches,
  reportedStates,
  waitForLaunch,
  writeTaskFile,
} from '../../fakes/agents/harness.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

let dir: string;
let home: string;
let work: string;
let logDir: string;
let herdr: FakeHerdr;

beforeEach(async () => {
  dir = await tempDir('dogsled-agents-in-herdr-');
  home = join(dir, 'home');
  work = join(dir, 'work');
  logDir = join(dir, 'log');
  await mkdir(work, { recursive: true });
  herdr = await startFakeHerdr({
    dir,
    env: { HOME: home, PATH: `${FAKE_AGENTS_BIN}:${process.env.PATH ?? ''}`, FAKE_AGENT_LOG_DIR: logDir },
  });
});

afterEach(async () => {
  await herdr.stop();
  await rm(dir, { recursive: true, force: true });
});

async function ok(method: string, params: Record<string, unknown>) {
  const reply = await herdr.call(method, params);
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

interface AgentView {
  agent_status: string;
  agent_session?: { source: string; agent: string; kind: 'id' | 'path'; value: string };
}

async function agentWhen(name: string, accept: (agent: AgentView) => boolean): Promise<AgentView> {
  return waitFor(`agent ${name}`, async () => {
    const { agent } = (await ok('agent.get', { target: name })) as { agent: AgentView };
    return accept(agent) ? agent : undefined;
  });
}

describe('fake agents started by the fake Herdr', () => {
  it('run the exact launch argv in the pane and report a Claude session id that resolves', async () => {
    const { root_pane } = await ok('workspace.create', { cwd: work });
    const taskPath = await writeTaskFile(join(work, 'launches', 'c1.task.md'), {
      script: [{ work_ms: 200 }, { reply: 'Child finished.' }],
    });
    const args = [
      '--model',
      'claude-opus-4-1',
      '--dangerously-skip-permissions',
      `Read the task in ${taskPath}`,
    ];
    await ok('agent.start', { name: 'child-a', kind: 'claude', pane_id: root_pane.pane_id, args });

    const launch = await waitForLaunch(logDir);
    expect(launch).toMatchObject({ argv: args, cwd: work, herdr_pane_id: root_pane.pane_id });
    const agent = await agentWhen(
      'child-a',
      (a) => a.agent_status !== 'working' && a.agent_session !== undefined,
    );
    expect(agent.agent_session).toMatchObject({
      kind: 'id',
      value: launch.session_id,
      source: 'herdr:claude',
    });

    const found = await discoverTranscript({ agent: 'claude', session: agent.agent_session, home });
    expect(found.path).toBe(launch.transcript);
    expect(await readTranscriptFacts(found.path!, 'claude')).toMatchObject({
      model: 'claude-opus-4-1',
      activity: { kind: 'message', text: 'Child finished.' },
    });
    const states = await waitFor('both states logged', async () => {
      const seen = await reportedStates(launch);
      return seen.length >= 2 ? seen : undefined;
    });
    expect(states).toEqual(['working', 'idle']);
  });

  it('report Pi sessions by path and go blocked on a question shown in the pane', async () => {
    const { root_pane } = await ok('workspace.create', { cwd: work });
    const taskPath = await writeTaskFile(join(work, 'launches', 'p1.task.md'), {
      script: [{ ask: 'Which database?' }],
    });
    await ok('agent.start', {
      name: 'pi-child',
      kind: 'pi',
      pane_id: root_pane.pane_id,
      args: [`@${taskPath}`],
    });
    const agent = await agentWhen('pi-child', (a) => a.agent_status === 'blocked');
    const [launch] = await readLaunches(logDir);
    expect(agent.agent_session).toMatchObject({ kind: 'path', value: launch?.transcript });
    const found = await discoverTranscript({ agent: 'pi', session: agent.agent_session, home });
    expect(found.path).toBe(launch?.transcript);
    expect((await readTranscriptFacts(found.path!, 'pi')).activity?.text).toBe('Which database?');
    const screen = await ok('pane.read', { pane_id: root_pane.pane_id, source: 'recent', lines: 50 });
    expect(screen.read.text).toContain('? Which database?');
  });
});
