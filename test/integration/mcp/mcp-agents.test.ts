// The child-agent tools of `dogsled mcp` through a real MCP client, the fake Herdr and fake agents:
// `spawn` answers with a durable queued ticket at once even when the host has room, and a real
// `serve` starts the child from it and tells the owner; `read`, `close` and `done` answer with what
// their commands print for the same state, and refuse in the commands' own words. Bad input is an
// error result that leaves nothing half-written (no task file, no ticket).

import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { QueuedSchema } from '../../../cli/output-schemas.js';
import { runCli, type startCli } from '../../helpers/cli.js';
import { type McpSession, startMcp } from '../../helpers/mcp-client.js';
import { waitFor } from '../../helpers/wait.js';
import {
  agentSuite,
  items,
  launchFileNames,
  launchRecords,
  newLaunches,
  ok,
  quickTask,
  tickets,
} from '../agents/agent-fixtures.js';
import { killAll, roomFor5, startServe, untilEligible } from '../jobs/job-queue-fixtures.js';

// One fake Herdr for the file (a state dir, scratch and config of its own per test, its panes closed
// after it): the launches are the file's, so a test reads its own through newLaunches.
const suite = agentSuite({ serviceLock: false, share: 'herdr' });
const running: Array<ReturnType<typeof startCli>> = [];
const sessions: McpSession[] = [];
let stopTicker: () => void = () => undefined;

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close();
  stopTicker();
  await killAll(running);
});

async function mcp(env: NodeJS.ProcessEnv = suite.env): Promise<McpSession> {
  const session = await startMcp(env, suite.scratch);
  sessions.push(session);
  return session;
}

/** A real serve on a fake /proc with room for five, and the fake Herdr; no caller pane of its own. */
async function serve(): Promise<void> {
  const host = await roomFor5(suite.box, 90_000);
  stopTicker = host.stop;
  const { HERDR_PANE_ID: _pane, ...env } = { ...suite.env, ...host.env };
  startServe({ ...env, HERDR_SOCKET_PATH: suite.env.HERDR_SOCKET_PATH, PATH: suite.env.PATH }, running);
  await untilEligible(suite.box);
}

function cli(args: string[], env: NodeJS.ProcessEnv = suite.env) {
  return runCli(args, env, { cwd: suite.scratch, timeoutMs: 60_000 });
}

/** A pane of its own in the fake Herdr, and the environment of a harness running in it. */
async function otherPane(): Promise<NodeJS.ProcessEnv> {
  const created = await ok(suite.herdr, 'workspace.create', { cwd: suite.scratch });
  return { ...suite.env, HERDR_PANE_ID: created.root_pane.pane_id };
}

describe('spawn', () => {
  it('answers with a queued ticket while the host has room; the service starts the child and tells the owner', async () => {
    await serve();
    const server = await mcp();
    const answer = QueuedSchema.parse(
      await server.json('spawn', { kind: 'claude', name: 'kid', message: quickTask() }),
    );
    // Durable: the ticket is in queue.json, owned by the caller, asking for this child.
    const ticket = (await tickets(suite)).find((entry) => entry.id === answer.ticket);
    expect(ticket).toMatchObject({ kind: 'agent', owner: suite.caller.pane, waiting: false });
    expect(ticket?.agent).toMatchObject({ kind: 'claude', name: 'kid', cwd: suite.scratch });

    const admitted = await waitFor(
      'the admitted ticket',
      async () => (await tickets(suite)).find((t) => t.id === answer.ticket && t.state === 'admitted'),
      { timeoutMs: 30_000 },
    );
    const [record] = await launchRecords(suite);
    expect(record).toMatchObject({ ticket: answer.ticket, state: 'started', name: 'kid', kind: 'claude' });
    expect(await newLaunches(suite)).toHaveLength(1);
    expect((await items(suite)).find((item) => item.ticket === answer.ticket)).toMatchObject({
      kind: 'agent',
      owner: suite.caller.pane,
    });
    // The caller did not wait: its inbox hears of the start.
    const terminal = (await ok(suite.herdr, 'pane.get', { pane_id: suite.caller.pane })).pane.terminal_id;
    await waitFor(
      'the admission in the owner inbox',
      async () => {
        const text = await readFile(join(suite.box.state, 'inbox', `${terminal}.json`), 'utf8').catch(
          () => '',
        );
        return text.includes(`(agent kid (claude)) was admitted on local`) || undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(admitted.notice === 'pending' || admitted.notice === 'delivered').toBe(true);

    // read answers as read --json does, once the child's pane stops changing.
    const pane = record?.pane as string;
    await waitFor(
      'read to answer as read --json',
      async () => {
        const byCli = await cli(['read', '--json', 'kid']);
        const mine = await server.json('read', { target: 'kid' });
        return JSON.stringify(mine) === byCli.stdout.trim() || undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(await server.json('read', { target: 'kid' })).toMatchObject({ kind: 'agent', pane });

    // close ends the child as close --json; a second close is refused in the CLI's words.
    const closed = await server.json('close', { pane });
    expect(closed).toEqual({ pane, worktree: null, pane_closed: true });
    expect((await items(suite)).find((item) => item.ticket === answer.ticket)?.closed_ms).not.toBeNull();
    const again = await server.call('close', { pane });
    const byCli = await cli(['close', pane]);
    expect(byCli.code).toBe(2);
    expect(again).toEqual({ isError: true, text: byCli.stderr.trim() });
    // The closed child's receipt, as read --json has it.
    const after = (await server.json('read', { target: 'kid' })) as { receipt: { tokens: number } };
    expect(after).toEqual(JSON.parse((await cli(['read', '--json', 'kid'])).stdout));
    expect(after.receipt).toMatchObject({ model: 'claude-sonnet-4-5-20250929', tokens: expect.any(Number) });
    expect(after.receipt.tokens).toBeGreaterThan(0);
  });

  it('queues without a service at all: the ticket waits, and cancel takes it back', async () => {
    const server = await mcp();
    const answer = QueuedSchema.parse(
      await server.json('spawn', { kind: 'pi', name: 'later', message: quickTask(), host: 'local' }),
    );
    const [ticket] = await tickets(suite);
    expect(ticket).toMatchObject({ id: answer.ticket, state: 'pending', pin: 'local' });
    expect(await launchFileNames(suite)).toEqual([`${ticket?.agent?.launch}.task.md`]);
    expect(await server.json('cancel', { ticket: answer.ticket })).toMatchObject({ state: 'cancelled' });
  });

  it('refuses bad input as an error result and leaves no task file and no ticket', async () => {
    const server = await mcp();
    const task = quickTask();
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ kind: 'vim', name: 'x', message: task }, /^dogsled: spawn: arguments: kind: /],
      [{ kind: 'pi', name: 'x', message: '' }, /^dogsled: spawn: arguments: message: /],
      [{ kind: 'pi', name: 'x', message: 'a\ud800b' }, /must be well-formed Unicode text/],
      [{ kind: 'pi', name: 'x', message: task, extra: 1 }, /^dogsled: spawn: arguments: unknown "extra"/],
      [{ kind: 'pi', name: 'x', message: 'x'.repeat(1024 * 1024 + 1) }, /over the 1048576-byte limit/],
      [{ kind: 'pi', name: 'x', message: task, cwd: '/nonexistent/\u001b[2J' }, /--cwd: no such directory/],
      [{ kind: 'pi', name: 'x', message: task, host: 'nowhere' }, /^dogsled: spawn: /],
      [{ kind: 'claude', name: 'x', message: task, profile: 'general' }, /--profile is for Pi children only/],
      [{ kind: 'pi', name: 'x', message: task, base: 'main' }, /--base needs --branch/],
    ];
    for (const [args, why] of bad) {
      const result = await server.call('spawn', args);
      expect(result.isError, JSON.stringify(args).slice(0, 200)).toBe(true);
      expect(result.text).toMatch(why);
      expect(result.text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
    // queue.json a directory: the submission fails after the task file was written, and takes it back.
    await mkdir(join(suite.box.state, 'queue.json'), { recursive: true });
    const blocked = await server.call('spawn', { kind: 'pi', name: 'x', message: task });
    expect(blocked.isError).toBe(true);
    expect(blocked.text).toMatch(/^dogsled: spawn: /);
    expect((await launchFileNames(suite)).filter((name) => name.endsWith('.task.md'))).toEqual([]);
    await rm(join(suite.box.state, 'queue.json'), { recursive: true });
    expect(await tickets(suite)).toEqual([]);
    // Outside Herdr: refused before anything is written.
    const { HERDR_SOCKET_PATH: _s, HERDR_ENV: _e, ...plain } = suite.env;
    const outside = await mcp({ ...plain, PATH: process.env.PATH });
    const refused = await outside.call('spawn', { kind: 'pi', name: 'x', message: task });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/needs Herdr or tmux \(/);
    expect((await launchFileNames(suite)).filter((name) => name.endsWith('.task.md'))).toEqual([]);
    expect(await tickets(suite)).toEqual([]);
  });
});

describe('done and read, as the CLI answers', () => {
  it('done marks the calling pane as done --json does, and refuses while its ticket waits', async () => {
    const child = await otherPane();
    // done is an agent's: a bare shell is refused (agent-done.test.ts), so an agent runs there.
    await ok(suite.herdr, 'pane.report_agent', {
      pane_id: child.HERDR_PANE_ID,
      source: 'test',
      agent: 'pi',
      state: 'working',
    });
    const mark = (await (await mcp(child)).json('done')) as { id: string; pane: string; state: string };
    expect(mark).toMatchObject({ pane: child.HERDR_PANE_ID, state: 'marked' });
    // A second done in the same turn answers with the same mark, from the CLI too.
    const byCli = await cli(['done', '--json'], child);
    expect(byCli.code).toBe(0);
    expect(JSON.parse(byCli.stdout)).toEqual(mark);

    // The owner with a queued child is refused, in the CLI's own line.
    const owner = await mcp();
    QueuedSchema.parse(await owner.json('spawn', { kind: 'pi', name: 'waiting', message: quickTask() }));
    const refused = await owner.call('done');
    const refusedByCli = await cli(['done']);
    expect(refusedByCli.code).toBe(2);
    expect(refused).toEqual({ isError: true, text: refusedByCli.stderr.trim() });
    expect(refused.text).toMatch(/^dogsled: done: you still have queued tickets: t_/);
  });

  it('read and close of what does not exist are refused as the CLI refuses them', async () => {
    const server = await mcp();
    for (const [tool, args, argv] of [
      ['read', { target: 'nobody' }, ['read', 'nobody']],
      ['read', { target: 'kid', host: 'elsewhere' }, ['read', 'kid', '--host', 'elsewhere']],
      ['close', { pane: 'w99:p9' }, ['close', 'w99:p9']],
      ['close', { pane: suite.caller.pane }, ['close', suite.caller.pane]],
    ] as const) {
      const result = await server.call(tool, args);
      const byCli = await cli([...argv]);
      expect(byCli.code, byCli.stderr).toBe(2);
      expect(result).toEqual({ isError: true, text: byCli.stderr.trim() });
    }
    // A FIFO in place of items.json: an error result, and the server answers the next call.
    await mkdir(suite.box.state, { recursive: true, mode: 0o700 });
    execFileSync('mkfifo', [join(suite.box.state, 'items.json')]);
    const fifo = await server.call('close', { pane: 'w99:p9' });
    expect(fifo.isError).toBe(true);
    expect(fifo.text).toMatch(/^dogsled: close: /);
    await rm(join(suite.box.state, 'items.json'));
    expect((await server.call('status')).isError).toBe(false);
  });
});
