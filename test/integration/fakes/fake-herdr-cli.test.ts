// The fake `herdr` shim (CONTRACT §3, §4.4, §8.1, §9.3 items 7 and 15): streams and exit codes,
// raw reads, silent reports, socket resolution, the client-side `agent start` readiness loop, and
// the Herdr 0.9 `machine` verbs with `--machine` forwarding (absent when the version is 0.8).
import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: records from the fake are plain JSON, checked by the assertions
type Json = any;

import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

// A stand-in agent: `--ready` reports idle, `--busy` working forever, `--as K` reports kind K,
// `--quit` exits at once.
const AGENT = `#!/usr/bin/env node
const net = require('net');
const args = process.argv.slice(2);
const kind = args.includes('--as') ? args[args.indexOf('--as') + 1] : require('path').basename(process.argv[1]);
if (args.includes('--quit')) process.exit(1);
const state = args.includes('--busy') ? 'working' : 'idle';
const s = net.connect(process.env.HERDR_SOCKET_PATH);
s.on('connect', () => s.write(JSON.stringify({ id: 'a', method: 'pane.report_agent', params: {
  pane_id: process.env.HERDR_PANE_ID, source: 'herdr:' + kind, agent: kind, state } }) + '\\n'));
s.on('data', () => {});
setInterval(() => {}, 1000);
`;

let dir: string;
let herdr: FakeHerdr;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await tempDir('fh-cli-');
  const bin = join(dir, 'agents');
  await mkdir(bin);
  for (const name of ['pi', 'codex']) {
    await writeFile(join(bin, name), AGENT);
    await chmod(join(bin, name), 0o755);
  }
  herdr = await startFakeHerdr({ dir, env: { HOME: dir, PATH: `${bin}:${process.env.PATH}` } });
  env = herdr.env;
});

afterAll(async () => {
  await herdr?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function herdrCli(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(herdr.binDir, 'herdr'), args, {
      env: { ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function newPane(): Promise<string> {
  return (await herdr.call('workspace.create', { cwd: dir })).result.root_pane.pane_id;
}

describe('streams and exit codes', () => {
  it('prints the success envelope on stdout and exits 0', async () => {
    const run = await herdrCli(['workspace', 'create', '--cwd', dir, '--label', 'cli', '--env', 'A=1']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const envelope = JSON.parse(run.stdout);
    expect(envelope.id).toBe('cli:workspace:create');
    expect(envelope.result).toMatchObject({ type: 'workspace_created', workspace: { label: 'cli' } });
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('prints a server error envelope on stderr with nothing on stdout and exits 1', async () => {
    const run = await herdrCli(['pane', 'get', 'w99:p1']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr)).toMatchObject({ id: 'cli:pane:get', error: { code: 'pane_not_found' } });
  });

  it('reports usage errors as plain text with exit 2', async () => {
    const cases = [
      ['pane', 'get'],
      ['pane', 'list', '--bogus'],
      ['pane', 'split', 'w1:p1', '--direction'],
      ['agent', 'wait', 'x', '--timeout', 'soon'],
      ['agent', 'start', 'x', '--kind', 'vim', '--pane', 'w1:p1'],
      ['frobnicate'],
    ];
    const runs = await Promise.all(cases.map((args) => herdrCli(args)));
    runs.forEach((run, index) => {
      expect([cases[index], run.code]).toEqual([cases[index], 2]);
      expect(run.stdout).toBe('');
      expect(() => JSON.parse(run.stderr)).toThrow();
    });
  });

  it('prints pane reads raw, runs commands and keeps report-metadata silent', async () => {
    const pane = await newPane();
    expect(await herdrCli(['pane', 'run', pane, 'echo', 'raw-marker'])).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    const text = await waitFor('the raw marker in the pane', async () => {
      const run = await herdrCli(['pane', 'read', pane, '--source', 'recent', '--lines', '10']);
      return run.stdout.includes('\nraw-marker') ? run.stdout : undefined;
    });
    expect(text.endsWith('\n')).toBe(false);
    expect(() => JSON.parse(text)).toThrow();

    const report = await herdrCli([
      'pane',
      'report-metadata',
      pane,
      '--source',
      'dogsled:test',
      '--token',
      'dogsled_state=review',
    ]);
    expect(report).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await herdr.call('pane.get', { pane_id: pane })).result.pane.tokens).toEqual({
      dogsled_state: 'review',
    });
  });

  it('says server_not_running on stderr with exit 1 when nothing listens, honouring --session', async () => {
    const gone = await herdrCli(['workspace', 'list'], { HERDR_SOCKET_PATH: join(dir, 'nothing.sock') });
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stderr).error.code).toBe('server_not_running');
    const session = await herdrCli(['--session', 'other', 'workspace', 'list']);
    expect(session.code).toBe(1);
    expect(JSON.parse(session.stderr).error.message).toContain(
      join(dir, 'config', 'herdr', 'sessions', 'other'),
    );
  });

  it('prints its version, 0.9.5 by default', async () => {
    expect((await herdrCli(['--version'])).stdout).toBe('herdr 0.9.5\n');
    expect((await herdrCli(['--version'], { FAKE_HERDR_VERSION: '0.8' })).stdout).toBe('herdr 0.8.0\n');
  });
});

// The timeout case waits out Herdr's minimum start timeout (3 s); let the others run alongside it.
describe.concurrent('agent start', () => {
  it('blocks until the agent is ready and prints agent_started', async () => {
    const pane = await newPane();
    const run = await herdrCli([
      'agent',
      'start',
      'cli-ready',
      '--kind',
      'pi',
      '--pane',
      pane,
      '--',
      '--ready',
      'two words',
    ]);
    expect(run.code).toBe(0);
    const envelope = JSON.parse(run.stdout);
    expect(envelope).toMatchObject({
      id: 'cli:agent:start',
      result: {
        type: 'agent_started',
        argv: ['pi', '--ready', 'two words'],
        agent: { name: 'cli-ready', interactive_ready: true },
      },
    });
  });

  it('fails with agent_kind_mismatch when another kind of agent shows up', async () => {
    const run = await herdrCli([
      'agent',
      'start',
      'cli-other',
      '--kind',
      'pi',
      '--pane',
      await newPane(),
      '--',
      '--as',
      'codex',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr).error.code).toBe('agent_kind_mismatch');
  });

  it('keeps waiting like the real CLI when the agent exits early, then times out', async () => {
    const pane = await newPane();
    const run = await herdrCli([
      'agent',
      'start',
      'cli-quit',
      '--kind',
      'codex',
      '--pane',
      pane,
      '--timeout',
      '3001',
      '--',
      '--quit',
    ]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr).error.code).toBe('timeout');
    expect((await herdr.call('agent.get', { target: 'cli-quit' })).error.code).toBe('agent_not_found');
  });

  it('times out, releases the name and leaves the agent running unnamed', async () => {
    const pane = await newPane();
    const run = await herdrCli([
      'agent',
      'start',
      'cli-slow',
      '--kind',
      'pi',
      '--pane',
      pane,
      '--timeout',
      '3001',
      '--',
      '--busy',
    ]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr).error).toMatchObject({
      code: 'timeout',
      message: 'timed out waiting for agent startup',
    });
    expect((await herdr.call('agent.get', { target: 'cli-slow' })).error.code).toBe('agent_not_found');
    const left = (await herdr.call('agent.get', { target: pane })).result.agent;
    expect(left).toMatchObject({ agent: 'pi', agent_status: 'working' });
    expect(left).not.toHaveProperty('name');
  });
});

describe('machines', () => {
  it('manages saved machines in the config dir and forwards --machine commands to their server', async () => {
    const otherDir = await tempDir('fh-cli-remote-');
    const remote = await startFakeHerdr({ dir: otherDir });
    try {
      await remote.call('workspace.create', { cwd: otherDir, label: 'remote-space' });
      expect(JSON.parse((await herdrCli(['machine', 'list', '--json'])).stdout)).toEqual({ machines: [] });
      const added = JSON.parse(
        (await herdrCli(['machine', 'add', 'me@box', '--label', 'box', '--json'])).stdout,
      );
      expect(added.machine).toMatchObject({ id: 'm1', label: 'box', target: 'me@box', enabled: true });
      expect((await herdrCli(['machine', 'rename', 'm1', 'workbox'])).code).toBe(0);
      expect((await herdrCli(['--machine', 'workbox', 'workspace', 'list'])).code).toBe(1);

      await herdr.call('_fake.machines.set', {
        machines: [{ id: 'm1', label: 'workbox', target: 'me@box', socket_path: remote.socketPath }],
      });
      const forwarded = await herdrCli(['--machine', 'workbox', 'workspace', 'list']);
      expect(forwarded.code).toBe(0);
      expect(JSON.parse(forwarded.stdout).result.workspaces.map((w: Json) => w.label)).toEqual([
        'remote-space',
      ]);

      expect((await herdrCli(['machine', 'disable', 'workbox'])).code).toBe(0);
      const disabled = await herdrCli(['workspace', 'list', '--machine', 'm1']);
      expect(disabled.code).toBe(1);
      expect(JSON.parse(disabled.stderr).error.code).toBe('machine_disabled');
      expect((await herdrCli(['machine', 'enable', 'm1'])).code).toBe(0);
      expect((await herdrCli(['machine', 'remove', 'm1'])).code).toBe(0);
      const stored = JSON.parse(await readFile(join(dir, 'config', 'herdr', 'machines.json'), 'utf8'));
      expect(stored.machines).toEqual([]);
    } finally {
      await remote.stop();
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('has no machine group and no --machine flag on Herdr 0.8', async () => {
    const list = await herdrCli(['machine', 'list', '--json'], { FAKE_HERDR_VERSION: '0.8' });
    expect(list).toEqual({ code: 2, stdout: '', stderr: 'unknown command: machine\n' });
    const forwarded = await herdrCli(['--machine', 'box', 'workspace', 'list'], {
      FAKE_HERDR_VERSION: '0.8.0',
    });
    expect(forwarded.code).toBe(2);
  });
});
