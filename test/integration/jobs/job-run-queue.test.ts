// `dogsled run` before anything starts: bad input is one line and exit 2 with nothing created, a full
// host queues the job as a pending ticket (exit 1 without --wait), and a new run never overtakes a
// ticket that is already waiting for the same host.

import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Ticket } from '../../../service/core/placement/queue-types.js';
import { statePaths } from '../../../service/state/paths.js';
import { changeTicket } from '../../../service/state/records/queue-items.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { QueueSchema } from '../../../service/state/schemas/queue-items-schemas.js';
import { runCli, type Sandbox, sandbox, spawnCli } from '../../helpers/cli.js';
import { ticketFixture } from '../../helpers/job-fixtures.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';
import { admitByHand } from './job-queue-fixtures.js';

let box: Sandbox;
let lock: ServiceLock | undefined;

beforeEach(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
});

afterEach(async () => {
  await lock?.release();
  await box.cleanup();
});

/** A fresh snapshot: 8 idle cores has room; 90% busy has none. */
async function host(room: boolean): Promise<void> {
  await writeSnapshot(
    box.state,
    snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: room ? 0 : 0.9 }),
  );
}

async function queue(): Promise<Ticket[]> {
  return QueueSchema.parse(JSON.parse(await readFile(join(box.state, 'queue.json'), 'utf8'))).tickets;
}

async function stateFiles(): Promise<string[]> {
  return (await readdir(box.state)).filter((name) => !name.startsWith('service') && name !== 'host.json');
}

function pendingTicket(id: string, created: number): Ticket {
  const request = {
    command: ['true'],
    cwd: '/',
    timeout_ms: null,
    idle_timeout_ms: null,
    caller_workspace: null,
  };
  return ticketFixture({ id, created_ms: created, state_ms: created, owner: null, request });
}

describe('run refuses bad input before creating anything', () => {
  it.each([
    [
      ['--timeout', 'x'],
      'run: --timeout: bad duration "x": use an integer with ms, s, m or h (90s, 10m, 1h)',
    ],
    [['--idle-timeout', '1.5h'], 'run: --idle-timeout: bad duration "1.5h"'],
    [['--max', '10d'], 'run: --max: bad duration "10d"'],
    [['--cwd', '/nonexistent/dir'], 'run: --cwd: no such directory: /nonexistent/dir'],
    [['--cwd', '/etc/hostname'], 'run: --cwd: not a directory: /etc/hostname'],
    [['--branch', 'feat/x', '--cwd', '/'], 'run: --branch needs a Git repository: / is not in one'],
    [['--base', 'main'], 'run: --base needs --branch'],
  ])('%j: one line, exit 2', async (flags, message) => {
    await host(true);
    const result = await runCli(['run', ...flags, '--', 'true'], box.env);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toContain(`dogsled: ${message}`);
    expect(result.stdout).toBe('');
    expect(await stateFiles()).toEqual([]);
  });

  it('refuses a command that is not on PATH, or a path that is not an executable file', async () => {
    await host(true);
    const dir = join(box.root, 'work');
    await mkdir(dir);
    await writeFile(join(dir, 'notes.txt'), 'not a program\n');
    const refusals = [
      ['no-such-command-xyz', 'command not found'],
      ['./notes.txt', 'command not executable'],
      ['/nonexistent/tool', 'command not found'],
    ];
    for (const [command, why] of refusals) {
      const result = await runCli(['run', '--cwd', dir, '--', command as string, 'arg'], box.env);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`dogsled: run: ${why}: ${command}\n`);
    }
    expect(await stateFiles()).toEqual([]);
  });

  it('refuses an unknown --host naming the known ones', async () => {
    await host(true);
    const result = await runCli(['run', '--host', 'netcup', '--', 'true'], box.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('dogsled: run: unknown host "netcup" (known: local)\n');
    expect((await stateFiles()).filter((name) => name !== 'queue.json.lock')).toEqual([]);
  });
});

describe('run on a full host', () => {
  it('prints the queued ticket as one human line (JSON with --json), exits 1 and leaves a pending ticket with the request', async () => {
    await host(false);
    const human = await runCli(['run', '--', 'true'], box.env);
    expect(human.code).toBe(1);
    expect(human.stderr).toBe('');
    expect(human.stdout).toMatch(
      /^queued as (t_[a-z2-7]{12}): no host has room \(local: [^\n]+\); the service starts it when a host has room \(dogsled cancel \1 drops it\)\n$/,
    );
    const cwd = join(box.root, 'work');
    await mkdir(cwd);
    const env = { ...box.env, HERDR_PANE_ID: 'w1:p2' };
    const result = await runCli(
      [
        'run',
        '--json',
        '--cwd',
        cwd,
        '--timeout',
        '1h',
        '--idle-timeout',
        '10m',
        '--',
        'sh',
        '-c',
        'echo hi',
      ],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^\{"queued":true,"ticket":"t_[a-z2-7]{12}"\}\n$/);
    // Behind the first ticket, which waits for the same host.
    expect(result.stderr).toContain('1 earlier ticket waits for the same host');
    const ticket = JSON.parse(result.stdout).ticket;
    expect((await queue()).slice(1)).toEqual([
      expect.objectContaining({
        id: ticket,
        kind: 'job',
        state: 'pending',
        waiting: false,
        owner: 'w1:p2',
        pin: null,
        notice: null,
        request: {
          command: ['sh', '-c', 'echo hi'],
          cwd,
          timeout_ms: 3_600_000,
          idle_timeout_ms: 600_000,
          caller_workspace: null,
        },
      }),
    ]);
    await expect(readdir(join(box.state, 'jobs'))).rejects.toThrow();
  });

  it("keeps the caller's environment beside the queue, and a state dir that cannot hold it queues nothing", async () => {
    await host(false);
    const env = { ...box.env, RUN_TOKEN: 'kept-for-admission' };
    const queued = await runCli(['run', '--json', '--', 'true'], env);
    expect(queued.code).toBe(1);
    const { ticket } = JSON.parse(queued.stdout);
    const saved = JSON.parse(await readFile(join(box.state, 'tickets', `${ticket}.env`), 'utf8'));
    expect(saved.env.RUN_TOKEN).toBe('kept-for-admission');
    expect(await readFile(join(box.state, 'queue.json'), 'utf8')).not.toContain('kept-for-admission');

    // tickets/ is a file: one line, exit 2, and the queue is as it was.
    await rm(join(box.state, 'tickets'), { recursive: true });
    await writeFile(join(box.state, 'tickets'), 'not a directory\n');
    const refused = await runCli(['run', '--json', '--', 'true'], env);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toMatch(/^dogsled: run: cannot write .*\/tickets\/t_[a-z2-7]{12}\.env: [^\n]+\n$/);
    expect((await queue()).map((t) => t.id)).toEqual([ticket]);
  });

  it('waits with --wait until --max, then prints still running and exits 124, saying the ticket stays queued', async () => {
    // --max bounds the whole call, start-up and placement included: 4 s leaves room on a loaded box.
    await host(false);
    const result = await runCli(['run', '--wait', '--max', '4s', '--json', '--', 'true'], box.env);
    expect(result.code).toBe(124);
    // One JSON document (cli-json-waits.test.ts checks every form against its schema).
    const doc = JSON.parse(result.stdout);
    expect(doc).toEqual({ queued: true, ticket: expect.stringMatching(/^t_/), still_running: true });
    expect(result.stderr.split('\n').slice(-2)).toEqual([
      `dogsled: run: --max reached; ticket ${doc.ticket} stays queued; dogsled cancel ${doc.ticket} drops it`,
      '',
    ]);
    expect(await queue()).toEqual([expect.objectContaining({ state: 'pending', waiting: true })]);
  });

  it('says the ticket stays queued when the user interrupts a --wait (Ctrl-C), and exits 130', async () => {
    await host(false);
    const { child, done } = spawnCli(['run', '--wait', '--', 'true'], box.env);
    // The wait listens for the interrupt from the moment it says it waits.
    let seen = '';
    child.stderr?.on('data', (chunk: string) => {
      seen += chunk;
    });
    await waitFor("run's waiting notice", async () =>
      seen.includes('waiting for its admission') ? true : undefined,
    );
    child.kill('SIGINT');
    const result = await done;
    const [ticket] = await queue();
    expect(ticket).toMatchObject({ state: 'pending', waiting: true });
    expect(result).toMatchObject({ code: 130, stdout: '' });
    expect(result.stderr.split('\n').slice(-2)).toEqual([
      `dogsled: run: interrupted; ticket ${ticket?.id} stays queued; dogsled cancel ${ticket?.id} drops it`,
      '',
    ]);
  });
});

describe('FIFO', () => {
  it('queues a new run behind a waiting ticket even when the host has room', async () => {
    await host(true);
    await writeFile(
      join(box.state, 'queue.json'),
      JSON.stringify({ version: 1, tickets: [pendingTicket('t_aaaaaaaaaaaa', Date.now() - 5_000)] }),
    );
    const result = await runCli(['run', '--', 'true'], box.env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 earlier ticket waits for the same host');
    const ticket = /^queued as (t_\w+):/.exec(result.stdout)?.[1];
    expect((await queue()).map((t) => [t.id, t.state])).toEqual([
      ['t_aaaaaaaaaaaa', 'pending'],
      [ticket, 'pending'],
    ]);
    // Nothing was reserved or started for it.
    await expect(readFile(join(box.state, 'placements.json'))).rejects.toThrow();
    await expect(readdir(join(box.state, 'jobs'))).rejects.toThrow();
  });

  it('does not wait behind settled tickets or a ticket pinned to a host nobody knows', async () => {
    await host(true);
    const settled = { ...pendingTicket('t_bbbbbbbbbbbb', Date.now() - 5_000), state: 'cancelled' as const };
    const stray = { ...pendingTicket('t_cccccccccccc', Date.now() - 4_000), pin: 'gone-host' };
    await writeFile(join(box.state, 'queue.json'), JSON.stringify({ version: 1, tickets: [settled, stray] }));
    const result = await runCli(['run', '--json', '--', 'true'], box.env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ queued: false, host: 'local' });
  });
});

describe('run --wait on a queued ticket', () => {
  /** Plays the service: waits for the run's pending ticket and returns it. */
  async function pending(): Promise<Ticket> {
    return waitFor(
      'the pending ticket',
      async () => {
        const tickets = await queue().catch(() => []);
        return tickets.find((t) => t.state === 'pending');
      },
      { timeoutMs: 10_000 },
    );
  }

  const io = () => ({ paths: statePaths(box.state), now: Date.now, warn: () => {} });

  it("follows the job the service admitted from it and exits with the job's status", async () => {
    await host(false);
    const waiting = runCli(['run', '--wait', '--', 'sh', '-c', 'echo admitted; exit 5'], box.env);
    const ticket = await pending();
    expect(ticket.waiting).toBe(true);
    const launched = await admitByHand(box, ticket.id);
    expect(launched.job).toMatchObject({ ticket: ticket.id, item: launched.item.id, pane: null });
    const result = await waiting;
    // A human wait keeps stdout for the job's output; the ticket is named on stderr.
    expect(result.stdout).toBe('admitted\n');
    expect(result.stderr).toContain(`dogsled: run: queued as ${ticket.id}: `);
    expect(result.code).toBe(5);
  });

  it.each([
    [
      'failed',
      'clone failed: no route to host',
      /^dogsled: run: ticket t_\w+ failed: clone failed: no route to host$/,
    ],
    ['cancelled', 'cancelled by the owner', /^dogsled: run: ticket t_\w+ was cancelled$/],
  ] as const)('exits 2 when the ticket is %s', async (state, error, message) => {
    await host(false);
    const waiting = runCli(['run', '--wait', '--', 'true'], box.env);
    const ticket = await pending();
    await changeTicket(io(), ticket.id, (t) => ({ ...t, state, error }));
    const result = await waiting;
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').filter((line) => !line.includes('queued as'))).toEqual([
      expect.stringMatching(message),
      '',
    ]);
  });
});
