// The fake Herdr's agent model (CONTRACT §1.3, §4, §9.3 items 6-10): detection by process and by
// integration reports, done vs idle, agent.start refusals that type nothing, launch readiness,
// waits, prompts and the per-pane agent status subscription. Uses a tiny node "agent" written
// into the test's temp dir (the product's fake agents live in test/fakes/agents).
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: records from the fake are plain JSON, checked by the assertions
type Json = any;

import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

// argv: [--fake-mode report|silent|working|exit] ...; logs argv and prompts as JSON lines.
const AGENT = `#!/usr/bin/env node
const fs = require('fs');
const net = require('net');
const kind = require('path').basename(process.argv[1]);
const args = process.argv.slice(2);
const mode = args[0] === '--fake-mode' ? args[1] : 'report';
const log = (entry) => fs.appendFileSync(process.env.AGENT_LOG, JSON.stringify(entry) + '\\n');
log({ kind, argv: args, cwd: process.cwd(), pane: process.env.HERDR_PANE_ID });
const report = (state) => new Promise((resolve) => {
  const s = net.connect(process.env.HERDR_SOCKET_PATH);
  s.on('connect', () => s.write(JSON.stringify({ id: 'agent', method: 'pane.report_agent', params: {
    pane_id: process.env.HERDR_PANE_ID, source: 'herdr:' + kind, agent: kind, state, agent_session_id: 'session-' + kind,
  } }) + '\\n'));
  s.on('data', () => {});
  s.on('close', resolve);
  s.on('error', resolve);
});
(async () => {
  process.stdout.write(kind + '> ');
  if (mode === 'exit') process.exit(3);
  if (mode === 'report') await report('idle');
  if (mode === 'working') await report('working');
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', async (chunk) => {
    buffer += chunk;
    while (buffer.includes('\\n')) {
      const line = buffer.slice(0, buffer.indexOf('\\n'));
      buffer = buffer.slice(buffer.indexOf('\\n') + 1);
      log({ prompt: line });
      if (mode !== 'report') continue;
      await report('working');
      await new Promise((r) => setTimeout(r, 100));
      await report('idle');
    }
  });
})();
`;

let dir: string;
let agentLog: string;
let herdr: FakeHerdr;

beforeAll(async () => {
  dir = await tempDir('fh-agents-');
  const bin = join(dir, 'agents');
  await mkdir(bin);
  for (const name of ['pi', 'claude', 'codex']) {
    await writeFile(join(bin, name), AGENT);
    await chmod(join(bin, name), 0o755);
  }
  agentLog = join(dir, 'agents.log');
  herdr = await startFakeHerdr({
    dir,
    env: { HOME: dir, AGENT_LOG: agentLog, PATH: `${bin}:${process.env.PATH}` },
  });
});

afterAll(async () => {
  await herdr?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function ok(method: string, params: Record<string, unknown> = {}) {
  const response = await herdr.call(method, params);
  if (!response.result) throw new Error(`${method} failed: ${JSON.stringify(response)}`);
  return response.result;
}

async function errorCode(method: string, params: Record<string, unknown>) {
  const response = await herdr.call(method, params);
  return response.error?.code as string | undefined;
}

async function newPane(): Promise<string> {
  return (await ok('workspace.create', { cwd: dir })).root_pane.pane_id;
}

async function agentLogEntries(): Promise<Json[]> {
  const text = await readFile(agentLog, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Raw pane output and foreground process list: what a refused start must leave untouched. */
async function paneSnapshot(pane: string) {
  const output = (await ok('_fake.pane.output', { pane_id: pane })).text;
  const processes = (await ok('pane.process_info', { pane_id: pane })).process_info.foreground_processes.map(
    (p: Json) => p.pid,
  );
  return { output, processes };
}

async function untilForeground(pane: string, name: string) {
  await waitFor('the pane to run the named foreground process', async () => {
    const info = (await ok('pane.process_info', { pane_id: pane })).process_info;
    return info.foreground_processes.some((p: Json) => p.name === name) ? true : undefined;
  });
}

describe('agent detection and reports', () => {
  it('makes a plain shell an agent while an integration reports one, with its session', async () => {
    const pane = await newPane();
    expect((await ok('pane.get', { pane_id: pane })).pane).not.toHaveProperty('agent');
    await ok('pane.report_agent', {
      pane_id: pane,
      source: 'herdr:pi',
      agent: 'pi',
      state: 'idle',
      agent_session_path: '/tmp/s.jsonl',
    });
    const record = (await ok('pane.get', { pane_id: pane })).pane;
    expect(record).toMatchObject({
      agent: 'pi',
      agent_status: 'idle',
      agent_session: { source: 'herdr:pi', agent: 'pi', kind: 'path', value: '/tmp/s.jsonl' },
    });
    const listed = (await ok('agent.list')).agents.find((a: Json) => a.pane_id === pane);
    expect(listed).toMatchObject({ agent: 'pi', state_change_seq: 1 });
    expect(listed).not.toHaveProperty('name');
    expect(listed).not.toHaveProperty('launch_pending');

    await ok('pane.release_agent', { pane_id: pane, source: 'herdr:pi', agent: 'pi' });
    const released = (await ok('pane.get', { pane_id: pane })).pane;
    expect(released.agent_status).toBe('unknown');
    expect(released).not.toHaveProperty('agent');
    expect(await errorCode('agent.get', { target: pane })).toBe('agent_not_found');
  });

  it('detects an agent process in the foreground and drops it when the process ends', async () => {
    const pane = await newPane();
    await ok('pane.send_input', { pane_id: pane, text: 'claude --fake-mode silent', keys: ['Enter'] });
    const agent = await waitFor('the claude agent detected in the pane', async () => {
      const response = await herdr.call('agent.get', { target: pane });
      return response.result?.agent.agent === 'claude' ? response.result.agent : undefined;
    });
    // Found by process alone: present but unclassified until a report or a test says otherwise.
    expect(agent.agent_status).toBe('unknown');
    await ok('_fake.agent.set_status', { target: pane, status: 'working' });
    expect((await ok('agent.get', { target: pane })).agent.agent_status).toBe('working');
    await ok('pane.send_input', { pane_id: pane, keys: ['ctrl+c'] });
    await waitFor('the agent gone', async () =>
      (await errorCode('agent.get', { target: pane })) === 'agent_not_found' ? true : undefined,
    );
    const detected = (await ok('_fake.events.list', { event: 'pane_agent_detected' })).events.filter(
      (e: Json) => e.data.pane_id === pane,
    );
    expect(detected.map((e: Json) => Boolean(e.data.released))).toEqual([false, true]);
  });

  it('shows done for a completion in a background tab until the tab is focused, and reads do not mark it seen', async () => {
    const first = await ok('workspace.create', { cwd: dir, focus: true });
    const background = await ok('tab.create', { workspace_id: first.workspace.workspace_id });
    const pane = background.root_pane.pane_id;
    await ok('pane.report_agent', { pane_id: pane, source: 'herdr:codex', agent: 'codex', state: 'working' });
    await ok('pane.report_agent', { pane_id: pane, source: 'herdr:codex', agent: 'codex', state: 'idle' });
    const done = (await ok('agent.get', { target: pane })).agent;
    expect(done.agent_status).toBe('done');
    await ok('pane.read', { pane_id: pane, source: 'recent' });
    await ok('agent.read', { target: pane, source: 'visible' });
    expect((await ok('agent.get', { target: pane })).agent.agent_status).toBe('done');
    expect((await ok('tab.get', { tab_id: background.tab.tab_id })).tab.agent_status).toBe('done');
    await ok('tab.focus', { tab_id: background.tab.tab_id });
    const idle = (await ok('agent.get', { target: pane })).agent;
    expect(idle.agent_status).toBe('idle');
    expect(idle.state_change_seq).toBeGreaterThan(done.state_change_seq);

    const active = first.root_pane.pane_id;
    await ok('tab.focus', { tab_id: first.tab.tab_id });
    await ok('pane.report_agent', { pane_id: active, source: 'herdr:pi', agent: 'pi', state: 'working' });
    await ok('pane.report_agent', { pane_id: active, source: 'herdr:pi', agent: 'pi', state: 'idle' });
    expect((await ok('agent.get', { target: active })).agent.agent_status).toBe('idle');
  });
});

describe('agent.start refusals type nothing', () => {
  it('refuses in the contract order and leaves pane output and processes unchanged', async () => {
    const free = await newPane();
    const withAgent = await newPane();
    const running = await newPane();
    const pending = await newPane();
    await ok('pane.report_agent', { pane_id: withAgent, source: 'herdr:pi', agent: 'pi', state: 'idle' });
    await ok('pane.send_input', { pane_id: running, text: 'sleep 30', keys: ['Enter'] });
    await untilForeground(running, 'sleep');
    await ok('agent.start', { name: 'taken', kind: 'pi', pane_id: pending, args: ['--fake-mode', 'silent'] });
    await new Promise((resolve) => setTimeout(resolve, 150));

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'Bad Name', kind: 'nope', pane_id: free }, 'invalid_agent_name'],
      [{ name: 'ok', kind: 'vim', pane_id: free }, 'unsupported_agent_kind'],
      [{ name: 'ok', kind: 'pi', pane_id: free, args: ['two\nlines'] }, 'invalid_agent_argument'],
      [{ name: 'taken', kind: 'pi', pane_id: free }, 'agent_name_taken'],
      [{ name: 'ok', kind: 'pi', pane_id: free.replace(':p', '-') }, 'agent_pane_not_found'],
      [{ name: 'ok', kind: 'pi', pane_id: withAgent }, 'agent_pane_busy'],
      [{ name: 'ok', kind: 'pi', pane_id: running }, 'agent_pane_busy'],
      [{ name: 'ok', kind: 'pi', pane_id: running, timeout_ms: 3000 }, 'agent_pane_busy'],
      [{ name: 'ok', kind: 'pi', pane_id: free, timeout_ms: 3000 }, 'invalid_agent_timeout'],
      [{ name: 'ok', kind: 'pi', pane_id: free, timeout_ms: 300_001 }, 'invalid_agent_timeout'],
    ];
    const panes = [free, withAgent, running];
    const before = await Promise.all(panes.map(paneSnapshot));
    for (const [params, code] of cases)
      expect([params, await errorCode('agent.start', params)]).toEqual([params, code]);

    await ok('_fake.pane.set_busy', { pane_id: free, busy: true });
    expect(await errorCode('agent.start', { name: 'ok', kind: 'pi', pane_id: free })).toBe('agent_pane_busy');
    await ok('_fake.pane.set_busy', { pane_id: free, busy: false });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await Promise.all(panes.map(paneSnapshot))).toEqual(before);
  });
});

describe('agent.start launches', () => {
  it('types the quoted argv, returns at once pending, and becomes ready after the settle delay', async () => {
    const pane = await newPane();
    const args = ['--fake-mode', 'report', 'it is "quoted"', "it's", '$HOME', ''];
    const started = await ok('agent.start', {
      name: 'reviewer',
      kind: 'pi',
      pane_id: pane,
      args,
      timeout_ms: 10_000,
    });
    expect(started.argv).toEqual(['pi', ...args]);
    expect(started.agent).toMatchObject({
      name: 'reviewer',
      pane_id: pane,
      launch_pending: true,
      agent_status: 'unknown',
    });
    expect(started.agent).not.toHaveProperty('interactive_ready');
    expect(await errorCode('agent.start', { name: 'reviewer', kind: 'pi', pane_id: await newPane() })).toBe(
      'agent_name_taken',
    );
    const ready = await waitFor('the reviewer ready', async () => {
      const { agent } = await ok('agent.get', { target: 'reviewer' });
      return agent.interactive_ready ? agent : undefined;
    });
    expect(ready).toMatchObject({ name: 'reviewer', agent: 'pi', agent_status: 'idle', pane_id: pane });
    expect(ready).not.toHaveProperty('launch_pending');
    expect(ready.agent_session).toEqual({ source: 'herdr:pi', agent: 'pi', kind: 'id', value: 'session-pi' });
    const entry = (await agentLogEntries()).find((e) => e.pane === pane && e.argv);
    expect(entry.argv).toEqual(args);
    expect(entry.cwd).toBe(dir);
  });

  it('releases the name when the launched process exits before it is ready', async () => {
    const pane = await newPane();
    await ok('agent.start', { name: 'quitter', kind: 'codex', pane_id: pane, args: ['--fake-mode', 'exit'] });
    await waitFor('the quitter gone', async () =>
      (await errorCode('agent.get', { target: 'quitter' })) === 'agent_not_found' ? true : undefined,
    );
    const reused = await ok('agent.start', {
      name: 'quitter',
      kind: 'codex',
      pane_id: await newPane(),
      args: ['--fake-mode', 'report'],
    });
    expect(reused.agent.name).toBe('quitter');
  });
});

describe('waits, prompts and subscriptions', () => {
  it('waits for a status, times out, and streams per-pane status changes with an initial event', async () => {
    const pane = await newPane();
    await ok('pane.report_agent', {
      pane_id: pane,
      source: 'herdr:claude',
      agent: 'claude',
      state: 'working',
    });
    const lines: Json[] = [];
    const socket = connect(herdr.socketPath);
    socket.setEncoding('utf8');
    let buffer = '';
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      while (buffer.includes('\n')) {
        lines.push(JSON.parse(buffer.slice(0, buffer.indexOf('\n'))));
        buffer = buffer.slice(buffer.indexOf('\n') + 1);
      }
    });
    await new Promise((resolve) => socket.on('connect', resolve));
    socket.write(
      `${JSON.stringify({
        id: 'sub',
        method: 'events.subscribe',
        params: {
          subscriptions: [{ type: 'pane.agent_status_changed', pane_id: pane }, { type: 'pane.closed' }],
        },
      })}\n`,
    );
    await waitFor('the subscription to start and send an event', async () =>
      lines.length >= 2 ? true : undefined,
    );
    expect(lines[0]).toEqual({ id: 'sub', result: { type: 'subscription_started' } });
    expect(lines[1]).toEqual({
      event: 'pane.agent_status_changed',
      data: { pane_id: pane, workspace_id: pane.split(':')[0], agent_status: 'working', agent: 'claude' },
    });

    const immediate = await ok('agent.wait', { target: pane, until: ['working'] });
    expect(immediate.agent.agent_status).toBe('working');
    expect(await errorCode('agent.wait', { target: pane, until: ['blocked'], timeout_ms: 100 })).toBe(
      'timeout',
    );
    const waiting = herdr.call('agent.wait', { target: pane, timeout_ms: 5000 });
    await ok('_fake.agent.set_status', { target: pane, status: 'blocked' });
    expect((await waiting).result.agent.agent_status).toBe('blocked');

    await waitFor('a blocked status event', async () =>
      lines.some((l) => l.event === 'pane.agent_status_changed' && l.data.agent_status === 'blocked')
        ? true
        : undefined,
    );
    await ok('pane.close', { pane_id: pane });
    await waitFor('a pane_closed event', async () =>
      lines.some((l) => l.event === 'pane_closed') ? true : undefined,
    );
    expect(lines.find((l) => l.event === 'pane_closed')).toEqual({
      event: 'pane_closed',
      data: { type: 'pane_closed', pane_id: pane, workspace_id: pane.split(':')[0] },
    });
    socket.destroy();
  });

  it('prompts a ready agent, waits for its turn to finish, and refuses empty prompts', async () => {
    const pane = await newPane();
    await ok('agent.start', { name: 'prompted', kind: 'pi', pane_id: pane, args: ['--fake-mode', 'report'] });
    await waitFor('the prompted agent ready', async () =>
      (await ok('agent.get', { target: 'prompted' })).agent.interactive_ready ? true : undefined,
    );
    expect(await errorCode('agent.prompt', { target: 'prompted', text: '' })).toBe('empty_agent_prompt');
    const before = (await ok('agent.get', { target: 'prompted' })).agent.state_change_seq;
    const prompted = await ok('agent.prompt', {
      target: 'prompted',
      text: 'do the thing',
      wait: { timeout_ms: 5000 },
    });
    // Its workspace is not the active one, so the finished turn is unseen.
    expect(prompted.agent.agent_status).toBe('done');
    expect(prompted.agent.state_change_seq).toBeGreaterThanOrEqual(before + 2);
    expect((await agentLogEntries()).some((e) => e.prompt === 'do the thing')).toBe(true);
  });
});
