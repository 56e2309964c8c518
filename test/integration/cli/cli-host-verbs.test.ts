// `dogsled host <verb>` as a peer runs it: the built CLI in a private sandbox, one-shot and as the
// `host rpc` server on a child's stdio, read back through the same transport code the pool uses.
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../service/hosts/view-schemas.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { encodeFrame, FrameDecoder } from '../../../service/transport/frames.js';
import { LocalTransport } from '../../../service/transport/local-transport.js';
import { RpcChannel } from '../../../service/transport/rpc-channel.js';
import { UnreachableError } from '../../../service/transport/types.js';
import { CLI, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

const NOW = 1_900_000_000_000;
/** Words a shell would split, expand, glob or read as options, had they been spliced into a line. */
const HOSTILE = [
  '-n',
  '--help',
  '--config',
  '/etc/passwd',
  "it's",
  'a b',
  '$(id)',
  '`id`',
  '*',
  'x\ny',
  '\u001b[31mred',
  '',
];
let box: Sandbox;
let env: NodeJS.ProcessEnv;
let lock: ServiceLock | undefined;

beforeEach(async () => {
  box = await sandbox();
  env = { ...box.env, DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW) };
});

afterEach(async () => {
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

function rpcServer(): {
  channel: Promise<RpcChannel>;
  exited: Promise<number | null>;
  stdin: NodeJS.WritableStream;
} {
  const child = spawn(process.execPath, [CLI, 'host', 'rpc'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const channel = RpcChannel.open(
    'local',
    { readable: child.stdout, writable: child.stdin, stderr: child.stderr, destroy: () => child.stdin.end() },
    15_000,
  );
  return { channel, exited, stdin: child.stdin };
}

describe('host snapshot', () => {
  it("prints this host exactly as status --json shows it, with the host's clock", async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 2_000, cores: 8, busy: 0.25 }));
    lock = await holdServiceLock(box.state);
    const snapshot = await runCli(['host', 'snapshot'], env);
    expect(snapshot).toMatchObject({ code: 0, stderr: '' });
    const status = StatusReportSchema.parse(JSON.parse((await runCli(['status', '--json'], env)).stdout));
    const reply = JSON.parse(snapshot.stdout);
    expect(reply).toEqual({ version: 1, now_ms: NOW, host: status.hosts[0], jobs: [] });
    expect(reply.host).toMatchObject({ service: 'up', sample_ms: NOW - 2_000, interval_ms: 10_000 });
  });

  it('says service down and no snapshot on a host whose service never ran', async () => {
    const reply = JSON.parse((await runCli(['host', 'snapshot'], env)).stdout);
    expect(reply.host).toMatchObject({ service: 'down', probe: null, sample_ms: null });
  });

  it('refuses arguments in one line, exit 2', async () => {
    const result = await runCli(['host', 'snapshot', '--json'], env);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe('dogsled: host snapshot: takes no arguments, got "--json"\n');
  });
});

describe('host verbs by name', () => {
  it('hands every word after the verb over as data, options and shell syntax included', async () => {
    const result = await runCli(['host', 'echo', ...HOSTILE], env, { input: 'in\u0000put' });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ args: HOSTILE, input: 'in\u0000put' });
  });

  it('refuses an unknown verb in one line, its escape sequences removed whole, never sent raw', async () => {
    const result = await runCli(['host', '\u001b]0;pwned\u0007x'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'dogsled: host: unknown verb "x" (known: snapshot, facts, todos, echo, quota-store, reserve, launch, job, logs, stop, admission, agent, worktree, read, close, send, outbox, doctor, prune, whereis, rpc)\n',
    );
    expect((await runCli(['host'], env)).stderr).toBe(
      'dogsled: host: which verb? (known: snapshot, facts, todos, echo, quota-store, reserve, launch, job, logs, stop, admission, agent, worktree, read, close, send, outbox, doctor, prune, whereis, rpc)\n',
    );
  });

  it('is hidden from the help', async () => {
    expect((await runCli(['--help'], env)).stdout).not.toMatch(/^\s+host\b/m);
  });
});

describe('host launch', () => {
  it('refuses arguments, input that is not JSON and a request of the wrong shape, in one line', async () => {
    for (const [args, input, stderr] of [
      [['--json'], '', 'dogsled: host launch: takes its request on stdin, got "--json"\n'],
      [[], 'not json', 'dogsled: host launch: the request on stdin is not JSON\n'],
      [[], '{"job":"../../x"}', 'dogsled: host launch: the request on stdin is not a launch request\n'],
    ] as const) {
      const result = await runCli(['host', 'launch', ...args], env, { input });
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr,
      });
    }
  });
});

describe('host admission', () => {
  const request = {
    command: ['true'],
    cwd: '/tmp',
    timeout_ms: null,
    idle_timeout_ms: null,
    caller_workspace: null,
  };
  const ask = (fields: Record<string, unknown> = {}) =>
    JSON.stringify({
      ticket: 't_owner0001',
      item: 'i_owner0001',
      owner: null,
      reservation: null,
      job: { id: 'j_owner0001', request },
      agent: null,
      end: 'never started: the owner stopped',
      ...fields,
    });
  const admission = async (input: string) => runCli(['host', 'admission'], env, { input });

  it('ends a job never made here, so a launch still on its way refuses its id and nothing starts', async () => {
    const asked = await admission(ask({ end: null }));
    expect({ code: asked.code, stderr: asked.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(asked.stdout)).toMatchObject({ state: 'pending', item: null });
    const ended = await admission(ask());
    expect(JSON.parse(ended.stdout)).toEqual({
      state: 'not-started',
      reason: 'never started: the owner stopped',
      item: null,
    });
    // Asked again: the same answer, from the record now there.
    expect(JSON.parse((await admission(ask({ end: null }))).stdout)).toMatchObject({ state: 'not-started' });
    const launch = {
      job: 'j_owner0001',
      item: 'i_owner0001',
      request,
      home_relative: null,
      owner: null,
      ticket: 't_owner0001',
      reservation: null,
    };
    const late = await runCli(['host', 'launch'], env, { input: JSON.stringify(launch) });
    expect({ code: late.code, stderr: late.stderr }).toEqual({
      code: 2,
      stderr: 'dogsled: host: job j_owner0001 already has a record\n',
    });
    const record = JSON.parse(await readFile(join(box.state, 'jobs', 'j_owner0001.json'), 'utf8'));
    expect(record).toMatchObject({
      started_ms: null,
      ticket: 't_owner0001',
      reason: 'never started: the owner stopped',
    });
    expect(record.ended_ms).not.toBeNull();
  });

  it("ends an agent's launch never made here as failed, and refuses another ticket's record", async () => {
    const agent = {
      launch: 'l_owner0001',
      kind: 'claude',
      name: 'never',
      profile: null,
      branch: null,
      base: null,
      cwd: '/tmp',
      caller_workspace: null,
    };
    const ended = await admission(ask({ job: null, agent }));
    expect(JSON.parse(ended.stdout)).toMatchObject({
      state: 'not-started',
      reason: 'never started: the owner stopped',
    });
    const record = JSON.parse(await readFile(join(box.state, 'launches', 'l_owner0001.json'), 'utf8'));
    expect(record).toMatchObject({ state: 'failed', attempts: 0, ticket: 't_owner0001', started_ms: null });
    const other = await admission(ask({ ticket: 't_other0001', job: null, agent }));
    expect({ code: other.code, stderr: other.stderr }).toEqual({
      code: 2,
      stderr: "dogsled: host admission: launch l_owner0001 is not ticket t_other0001's\n",
    });
  });

  it('refuses input that is not an ask, and a record path that is not a file, in one line', async () => {
    for (const input of [
      '',
      'not json',
      ask({ ticket: '\u001b[31m$(id)' }),
      ask({ agent: {} }),
      ask({ job: null }),
    ]) {
      const result = await admission(input);
      expect(result.code, input).toBe(2);
      expect(result.stderr).toMatch(
        /^dogsled: host admission: the ask on stdin is not (JSON|an admission ask)\n$/,
      );
    }
    await mkdir(join(box.state, 'jobs', 'j_owner0001.json'), { recursive: true });
    const directory = await admission(ask());
    expect(directory.code).toBe(2);
    expect(directory.stderr).toMatch(/^dogsled: [^\n]*j_owner0001[^\n]*\n$/);
    expect(directory.stdout).toBe('');
  });
});

describe('host rpc', () => {
  it('says hello, then answers overlapping requests by id, refusals included', async () => {
    const server = rpcServer();
    const channel = await server.channel;
    expect(channel.version).toMatch(/\d/);
    const timeout = { timeoutMs: 15_000 };
    const replies = await Promise.all([
      channel.request('snapshot', [], timeout),
      ...HOSTILE.map((word, i) => channel.request('echo', [word, String(i)], { ...timeout, input: `#${i}` })),
      channel.request('snapshot', ['extra'], timeout),
      channel.request('rpc', [], timeout),
    ]);
    expect(replies[0]).toMatchObject({ ok: true, exitCode: 0, value: { version: 1, now_ms: NOW } });
    HOSTILE.forEach((word, i) => {
      expect(replies[i + 1]).toMatchObject({ ok: true, value: { args: [word, String(i)], input: `#${i}` } });
    });
    expect(replies.at(-2)).toMatchObject({
      ok: false,
      exitCode: 2,
      error: 'host snapshot: takes no arguments, got "extra"',
    });
    expect(replies.at(-1)).toMatchObject({
      ok: false,
      exitCode: 2,
      error: expect.stringMatching(/unknown verb "rpc"/),
    });
    server.stdin.end();
    expect(await server.exited).toBe(0);
  });

  it('ends with one fatal frame on input that is not frames, and the caller calls it a failed remote command', async () => {
    const child = spawn(process.execPath, [CLI, 'host', 'rpc'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const frames: unknown[] = [];
    const decoder = new FrameDecoder();
    child.stdout.on('data', (chunk: Buffer) => frames.push(...decoder.push(chunk)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.end('GET / HTTP/1.1\r\n\r\n');
    expect(await exited).toBe(2);
    expect(frames[0]).toMatchObject({ t: 'hello' });
    expect(frames[1]).toMatchObject({ t: 'fatal', error: expect.stringMatching(/not dogsled frames/) });

    const server = rpcServer();
    const channel = await server.channel;
    const pending = channel.request('echo', ['x'], { timeoutMs: 15_000 });
    server.stdin.write(encodeFrame({ t: 'req', id: 'not a number' }));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect(error).toMatchObject({ category: 'remote command failed' });
    expect((error as UnreachableError).detail).toMatch(/not a request/);
  });

  it('fails a request whose reply is over its limit as a failed remote command, without reading megabytes to their end', async () => {
    const server = rpcServer();
    const channel = await server.channel;
    // A small reply over a small limit: that request fails, the channel goes on.
    const small = await channel
      .request('echo', ['x'.repeat(500)], { timeoutMs: 15_000, maxReplyBytes: 100 })
      .catch((e: unknown) => e);
    expect(small).toBeInstanceOf(UnreachableError);
    expect(small).toMatchObject({ category: 'remote command failed' });
    expect((small as UnreachableError).detail).toMatch(/^a reply of \d+ bytes, over the 100-byte limit/);
    expect(await channel.request('echo', ['y'], { timeoutMs: 15_000 })).toMatchObject({ ok: true });
    // Megabytes for a bounded request alone: the frame's announced length ends the channel.
    const big = await channel
      .request('echo', [], {
        timeoutMs: 15_000,
        input: Buffer.alloc(4 * 1024 * 1024, 'x'),
        maxReplyBytes: 1024 * 1024,
      })
      .catch((e: unknown) => e);
    expect(big).toMatchObject({ category: 'remote command failed' });
    expect(channel.closed).toBe(true);
  });

  it('beats each second while a slow request runs, and only then', async () => {
    const child = spawn(process.execPath, [CLI, 'host', 'rpc'], {
      env: { ...env, DOGSLED_TEST_ECHO_DELAY_MS: '2500' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const frames: Array<{ t: string }> = [];
    const decoder = new FrameDecoder();
    const replied = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        for (const frame of decoder.push(chunk) as Array<{ t: string }>) {
          frames.push(frame);
          if (frame.t === 'res') resolve();
        }
      });
    });
    child.stdin.write(encodeFrame({ t: 'req', id: 1, verb: 'echo', args: ['slow'] }));
    await replied;
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    // Two beats fit in 2.5 s; a stalled machine may merge them, never drop both or beat after the reply.
    expect(frames.map((frame) => frame.t).join(' ')).toMatch(/^hello( beat){1,2} res$/);
  });

  it('calls a channel whose server exits before its hello a failed remote command, escapes stripped', async () => {
    const child = spawn(
      process.execPath,
      ['-e', 'process.stderr.write("\\u001b[2Jmise: no such tool\\n"); process.exit(127)'],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const error = await RpcChannel.open(
      'peer',
      { readable: child.stdout, writable: child.stdin, stderr: child.stderr, destroy: () => child.kill() },
      15_000,
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      category: 'remote command failed',
      message: 'peer: unreachable: remote command failed',
    });
    expect((error as UnreachableError).detail).not.toContain('\u001b');
  });
});

describe('LocalTransport', () => {
  it('runs a verb of this build as a child and reads its reply like a peer', async () => {
    const local = new LocalTransport({ self: [process.execPath, CLI], env });
    const target = { host: 'local', remoteCommand: ['unused'] };
    expect(await local.exec(target, ['echo', ...HOSTILE], { input: 'x' })).toMatchObject({
      ok: true,
      exitCode: 0,
      value: { args: HOSTILE, input: 'x' },
    });
    const oversize = await local
      .exec(target, ['echo', 'x'.repeat(2_000)], { maxReplyBytes: 1_000 })
      .catch((e: unknown) => e);
    expect(oversize).toBeInstanceOf(UnreachableError);
    expect(oversize).toMatchObject({ category: 'remote command failed' });
    expect(await local.exec(target, ['nope'])).toMatchObject({
      ok: false,
      exitCode: 2,
      error: expect.stringMatching(/^host: unknown verb "nope"/),
    });
  });
});
