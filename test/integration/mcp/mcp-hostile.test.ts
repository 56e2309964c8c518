// `dogsled mcp` under bad input: wrong arguments, hostile text, state files that are not files, a
// lock holder frozen with SIGSTOP, and a client that closes stdin mid-call. Each failure is the
// tool's error result (`dogsled: <tool>: <why>`, one escape-free line), never the server's end, and
// every answer is escape-free whatever the state holds.

import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectLock } from '../../../service/state/engine/lock.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { CLI, exited, runCli, type Sandbox, sandbox, spawnCli } from '../../helpers/cli.js';
import { lockUnrefreshedFor, stopInLock, stoppedItself } from '../../helpers/frozen-lock.js';
import { type McpSession, startMcp } from '../../helpers/mcp-client.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

let box: Sandbox;
let lock: ServiceLock | undefined;
let server: McpSession | undefined;
const children: ChildProcess[] = [];

beforeEach(async () => {
  box = await sandbox({ DOGSLED_TEST: '1', DOGSLED_TEST_LOCK_STALE_MS: '1000' });
  await mkdir(box.state, { recursive: true, mode: 0o700 });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited(child);
  }
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

async function mcp(): Promise<McpSession> {
  server = await startMcp(box.env, box.root);
  return server;
}

/** Control characters other than newline and tab, anywhere. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const BAD: Array<[string, Record<string, unknown>, string]> = [
  ['run', { command: 'ls' }, 'dogsled: run: arguments: command: '],
  ['run', {}, 'dogsled: run: arguments: command: '],
  ['run', { command: [] }, 'dogsled: run: arguments: command: '],
  [
    'run',
    { command: ['ls', 'a\ud800b'] },
    'dogsled: run: arguments: command.1: must be well-formed Unicode text',
  ],
  ['run', { command: ['ls'], timeout: '0s' }, 'dogsled: run: --timeout: must be longer than 0'],
  ['run', { command: ['ls'], timeout: '9000h' }, 'dogsled: run: --timeout: '],
  ['run', { command: ['ls'], idle_timeout: '5 minutes' }, 'dogsled: run: --idle-timeout: '],
  ['run', { command: ['ls'], cwd: '/nonexistent/\u001b[31mdir' }, 'dogsled: run: --cwd: no such directory'],
  ['run', { command: ['no-such-program-\u001b]0;x\u0007'] }, 'dogsled: run: command not found'],
  ['place', { host: '\u001b[2Jnowhere' }, 'dogsled: place: unknown host'],
  ['place', { nope: 1, '\u001b]0;pwn\u0007k': 2 }, 'dogsled: place: arguments: unknown "nope", "k"'],
  ['stop', { job: 'j_\u001b[31mnope' }, 'dogsled: stop: '],
  ['cancel', { ticket: 5 }, 'dogsled: cancel: arguments: ticket: '],
  ['cancel', { ticket: 't_nope' }, 'dogsled: cancel: unknown ticket'],
  ['send', { target: 'w1:p1', message: 'hi' }, 'dogsled: send'],
  ['inbox', {}, 'dogsled: inbox'],
];

describe('bad arguments', () => {
  it('are error results naming the tool, escape-free, and the server keeps answering', async () => {
    const session = await mcp();
    for (const [tool, args, start] of BAD) {
      const result = await session.call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}: ${result.text}`).toBe(true);
      expect(result.text.startsWith(start), `${result.text} starts with ${start}`).toBe(true);
      expect(result.text).not.toMatch(CONTROL);
      expect(result.text).not.toContain('\n');
    }
    await expect(session.client.callTool({ name: 'nope\u001b[31m' })).rejects.toThrow(
      /-32602.*no tool "nope"/,
    );
    expect((await session.call('status')).isError).toBe(false);
    expect(session.stderr()).toBe('');
  }, 60_000);

  it("read as the CLI reads them: a refused duration is the CLI's own line", async () => {
    const session = await mcp();
    const result = await session.call('run', { command: ['ls'], timeout: '10y' });
    const byCli = await runCli(['run', '--timeout', '10y', '--', 'ls'], box.env);
    expect(byCli.code).toBe(2);
    expect(result).toEqual({ isError: true, text: byCli.stderr.trim() });
  }, 30_000);
});

describe('hostile state', () => {
  it.each(['directory', 'fifo'])(
    'a queue.json that is a %s is an error result, and the next call works',
    async (kind) => {
      const queue = join(box.state, 'queue.json');
      if (kind === 'directory') await mkdir(queue);
      else execFileSync('mkfifo', [queue]);
      const session = await mcp();
      const place = await session.call('place');
      expect(place.isError).toBe(true);
      expect(place.text).toMatch(/^dogsled: place: /);
      expect(place.text).not.toMatch(CONTROL);
      await rm(queue, { recursive: true });
      expect((await session.call('place')).text).toMatch(/^\{"queued":true,"ticket":"t_/);
    },
    60_000,
  );

  it('answers are escape-free where the CLI JSON carries what a job was given', async () => {
    lock = await holdServiceLock(box.state);
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now(), cores: 8, busy: 0.9 }));
    const hostile = ['sh', '-c', 'sleep 1 # \u001b]0;pwned\u0007\u001b[2J\u009b31m'];
    const queued = await runCli(['run', '--json', '--', ...hostile], box.env, { cwd: box.root });
    expect(queued.code).toBe(1);
    const raw = await runCli(['status', '--json'], box.env);
    expect(raw.stdout).toContain('\\u001b');
    const status = (await (await mcp()).json('status')) as {
      queue: Array<{ request: { command: string[] } }>;
    };
    expect(JSON.stringify(status)).not.toMatch(/\\u00(1b|07|9b)/);
    expect(status.queue[0]?.request.command).toEqual(['sh', '-c', 'sleep 1 # ']);
  }, 60_000);
});

describe('a lock holder frozen with SIGSTOP', () => {
  it('holds up only the call that needs its lock: status answers meanwhile, place once it resumes', async () => {
    const frozen = spawnCli(
      ['place', '--json'],
      { ...box.env, ...stopInLock('queue.json') },
      { timeoutMs: 60_000 },
    );
    children.push(frozen.child);
    await stoppedItself(frozen.child.pid);
    expect((await inspectLock(join(box.state, 'queue.json')))?.owner?.pid).toBe(frozen.child.pid);
    const session = await mcp();
    const place = session.call('place');
    let settled = false;
    void place.then(() => {
      settled = true;
    });
    await lockUnrefreshedFor(join(box.state, 'queue.json'), 2_000);
    // A few of the call's retries past the stale window (no event marks a waiter's attempts).
    await sleep(500);
    // Past the stale window: the frozen holder keeps its lock, the call waits, the server answers.
    expect(settled).toBe(false);
    expect((await session.call('status')).isError).toBe(false);
    frozen.child.kill('SIGCONT');
    const [mine, theirs] = await Promise.all([place, frozen.done]);
    expect(mine.text).toMatch(/^\{"queued":true,"ticket":"t_/);
    expect(theirs.code).toBe(1);
    expect(JSON.parse(theirs.stdout).ticket).not.toBe(JSON.parse(mine.text).ticket);
  }, 60_000);
});

describe('the end of the session', () => {
  it('comes when stdin closes: calls already read are answered first, and the exit is 0', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], { env: box.env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'place', arguments: {} } },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'cancel', arguments: { ticket: 't_nope' } },
      },
    ];
    child.stdin.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    const answers = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3]);
    const place = answers.find((answer) => answer.id === 2);
    expect(place.result.content[0].text).toMatch(/^\{"queued":true,"ticket":"t_/);
  }, 30_000);
});
