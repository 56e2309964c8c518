// The fake agents report state to Herdr like the official integrations: pane.report_agent over
// HERDR_SOCKET_PATH, one request per connection, with the session as id (Claude, Codex) or path
// (Pi). A small socket server here records what arrives.

import { mkdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  fakeAgentEnv,
  type RunningFakeAgent,
  readLaunches,
  startFakeAgent,
  waitForLaunch,
} from '../../fakes/agents/harness.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

interface Call {
  connection: number;
  request: { id: string; method: string; params: Record<string, unknown> };
}

let root: string;
let work: string;
let logDir: string;
let env: NodeJS.ProcessEnv;
let server: Server;
let calls: Call[];
const running: RunningFakeAgent[] = [];

beforeEach(async () => {
  root = await tempDir('dogsled-fake-herdr-report-');
  work = join(root, 'work');
  logDir = join(root, 'log');
  await mkdir(join(root, 'home'), { recursive: true });
  await mkdir(work, { recursive: true });
  calls = [];
  let connections = 0;
  const socketPath = join(root, 'herdr.sock');
  server = createServer((socket) => {
    const connection = ++connections;
    let buffer = '';
    socket.setEncoding('utf8');
    // An agent stopped mid-report resets its connection; unhandled, that reset fails the whole run.
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      const request = JSON.parse(buffer.slice(0, end)) as Call['request'];
      calls.push({ connection, request });
      // Like Herdr: one answer, then the server closes the connection.
      socket.end(`${JSON.stringify({ id: request.id, result: { type: 'ok' } })}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const base = { ...process.env };
  for (const key of Object.keys(base)) if (key.startsWith('HERDR_')) delete base[key];
  env = {
    ...fakeAgentEnv(base, { home: join(root, 'home'), logDir }),
    HERDR_ENV: '1',
    HERDR_SOCKET_PATH: socketPath,
    HERDR_PANE_ID: 'w1:p2',
  };
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((agent) => agent.stop()));
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

function start(kind: 'claude' | 'codex' | 'pi', args: string[]) {
  const agent = startFakeAgent(kind, args, { cwd: work, env });
  running.push(agent);
  return agent;
}

const reports = () =>
  calls.filter((c) => c.request.method === 'pane.report_agent').map((c) => c.request.params);

describe('state reports to Herdr', () => {
  it('send working then idle for a Claude turn, with the session id, one connection each', async () => {
    const agent = start('claude', ['fake-agent: {"steps":[{"work_ms":100},{"reply":"ok"}]}']);
    await waitFor('two reports', () => (reports().length >= 2 ? true : undefined));
    const launch = await waitForLaunch(logDir);
    expect(reports()).toEqual([
      expect.objectContaining({
        pane_id: 'w1:p2',
        source: 'herdr:claude',
        agent: 'claude',
        state: 'working',
        agent_session_id: launch.session_id,
      }),
      expect.objectContaining({ state: 'idle', agent_session_id: launch.session_id }),
    ]);
    expect(new Set(calls.map((c) => c.connection)).size).toBe(calls.length);
    const seqs = reports().map((r) => r.seq as number);
    expect(seqs[1]).toBeGreaterThan(seqs[0]!);
    expect(agent.output()).toContain('● ok');
  });

  it('send blocked with the question while an ask waits for its answer', async () => {
    const agent = start('codex', ['fake-agent: {"steps":[{"ask":"Which branch?"},{"reply":"thanks"}]}']);
    await waitFor('blocked', () => (reports().some((r) => r.state === 'blocked') ? true : undefined));
    expect(reports().at(-1)).toMatchObject({
      source: 'herdr:codex',
      agent: 'codex',
      state: 'blocked',
      message: 'Which branch?',
    });
    agent.type('main');
    await waitFor('idle', () => (reports().at(-1)?.state === 'idle' ? true : undefined));
    expect(reports().map((r) => r.state)).toEqual(['working', 'blocked', 'working', 'idle']);
  });

  it('send the transcript path for Pi, and idle at start when there is no prompt', async () => {
    start('pi', []);
    await waitFor('a report', () => (reports().length >= 1 ? true : undefined));
    const [launch] = await readLaunches(logDir);
    expect(reports()[0]).toMatchObject({
      source: 'herdr:pi',
      agent: 'pi',
      state: 'idle',
      agent_session_path: launch?.transcript,
    });
    expect(reports()[0]).not.toHaveProperty('agent_session_id');
  });

  it('are skipped without HERDR_SOCKET_PATH, and the agent works the same', async () => {
    const agent = startFakeAgent('claude', ['-p', 'fake-agent: {"steps":[{"reply":"alone"}]}'], {
      cwd: work,
      env: { ...env, HERDR_SOCKET_PATH: '' },
    });
    running.push(agent);
    expect((await agent.exited).code).toBe(0);
    expect(calls).toEqual([]);
  });

  it('do not stop the agent when Herdr is gone', async () => {
    const agent = startFakeAgent('claude', ['-p', 'fake-agent: {"steps":[{"reply":"still fine"}]}'], {
      cwd: work,
      env: { ...env, HERDR_SOCKET_PATH: join(root, 'nothing-here.sock') },
    });
    running.push(agent);
    expect((await agent.exited).code).toBe(0);
    expect(agent.output()).toContain('● still fine');
  });
});
