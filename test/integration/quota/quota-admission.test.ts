// Quota-aware admission through a real `serve` (fake /proc with room for 5): a ticket whose harness's
// pool is exhausted in quota.json stays queued with the reason on it (queue.json, status, items,
// the board), a job queued after it is admitted past it, and it is admitted in the service's first
// pass after the reset, its hold cleared. With the key off, nothing waits.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ticket } from '../../../service/core/placement/queue-types.js';
import { statePaths } from '../../../service/state/paths.js';
import { writeTaskFile } from '../../../service/state/records/launch-files.js';
import { readLaunches } from '../../fakes/agents/harness.js';
import { runCli, type startCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { agentSuite, quickTask } from '../agents/agent-fixtures.js';
import {
  appendTickets,
  killAll,
  roomFor5,
  startServe,
  ticketFixture,
  tickets,
  untilEligible,
} from '../jobs/job-queue-fixtures.js';

// The fake Herdr runs the admitted agents (fake harnesses); no service lock: the real serve holds it.
const suite = agentSuite({ serviceLock: false });
let stopTicker: () => void = () => undefined;
const running: Array<ReturnType<typeof startCli>> = [];

afterEach(async () => {
  stopTicker();
  await killAll(running);
});

/** Far enough ahead that the held ticket is seen waiting first, even on a loaded machine. */
const RESET_AHEAD_MS = 20_000;

async function exhaustedCodex(resets_ms: number): Promise<void> {
  const row = (pool: string, account: string, used_pct: number) => ({
    pool,
    account,
    window: 'primary',
    used_pct,
    resets_ms,
    error: null,
  });
  const snapshot = {
    version: 1,
    fetched_ms: Date.now(),
    source: 'test',
    pools: [
      row('codex', 'a@example.com', 100),
      row('codex', 'b@example.com', 100),
      row('claude', 'c@example.com', 40),
    ],
  };
  await writeFile(join(suite.box.state, 'quota.json'), JSON.stringify(snapshot), { mode: 0o600 });
}

/** A job ticket that records its start in starts.log. */
function job(id: string, created_ms: number): Ticket {
  const request = {
    command: ['sh', '-c', `echo ${id} >> ${join(suite.box.root, 'starts.log')}`],
    cwd: suite.scratch,
    timeout_ms: null,
    idle_timeout_ms: null,
    caller_workspace: null,
  };
  return ticketFixture({ id, owner: suite.caller.pane, created_ms, state_ms: created_ms, request });
}

/**
 * An agent ticket as `dogsled agent` queues it on a full host: its task file written first, the
 * child named after the ticket so its launch can be told apart.
 */
async function agentTicket(id: string, kind: 'codex' | 'claude', created_ms: number): Promise<Ticket> {
  const launch = `l_${id.slice(2)}`;
  await writeTaskFile(statePaths(suite.box.state), launch, quickTask());
  const agent = {
    launch,
    kind,
    name: id.replaceAll('_', '-'),
    profile: null,
    branch: null,
    base: null,
    cwd: suite.scratch,
    caller_workspace: suite.caller.workspace,
  };
  const base = ticketFixture({ id, owner: suite.caller.pane, created_ms, state_ms: created_ms });
  return { ...base, kind: 'agent', request: null, agent };
}

async function jobStarts(): Promise<string[]> {
  return (await readFile(join(suite.box.root, 'starts.log'), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean);
}

/** The harnesses the fake Herdr has started, by kind. */
async function agentStarts(): Promise<string[]> {
  return (await readLaunches(suite.logDir)).map((launch) => launch.kind);
}

/** serve with the fake /proc (room for 5) and the fake Herdr, no caller pane of its own. */
async function serving(config = ''): Promise<NodeJS.ProcessEnv> {
  const host = await roomFor5(suite.box, 60_000);
  stopTicker = host.stop;
  const box = suite.box;
  if (config !== '') await writeFile(box.configPath, `${await readFile(box.configPath, 'utf8')}${config}`);
  const { HERDR_PANE_ID: _pane, ...env } = { ...suite.env, ...host.env };
  startServe(
    {
      ...env,
      HERDR_SOCKET_PATH: suite.env.HERDR_SOCKET_PATH,
      PATH: suite.env.PATH,
      DOGSLED_TEST_LAUNCH_BACKOFF_SCALE: '0.01',
    },
    running,
  );
  await untilEligible(box);
  return suite.env;
}

const byId = async (id: string) => (await tickets(suite.box)).find((t) => t.id === id);

describe('quota-aware admission', () => {
  it('keeps a ticket of an exhausted pool queued with its reason, admits work past it, and it after the reset', async () => {
    const env = await serving();
    const reset = Date.now() + RESET_AHEAD_MS;
    await exhaustedCodex(reset);
    const now = Date.now();
    await appendTickets(suite.box, [
      await agentTicket('t_codex000000', 'codex', now),
      job('t_job00000000', now + 1),
    ]);

    // The job queued after it is admitted; the Codex ticket waits, with the reason on it.
    await waitFor(
      'the job ticket admitted',
      async () => ((await byId('t_job00000000'))?.state === 'admitted' ? true : undefined),
      { timeoutMs: 20_000 },
    );
    const held = await byId('t_codex000000');
    expect(held).toMatchObject({
      state: 'pending',
      hold: {
        pool: 'codex',
        until_ms: reset,
        reason: 'codex quota exhausted: every account is at 100% until its reset',
      },
    });
    expect(Date.now()).toBeLessThan(reset);
    await waitFor(
      'the job to start',
      async () => ((await jobStarts()).includes('t_job00000000') ? true : undefined),
      { timeoutMs: 15_000 },
    );
    expect(await agentStarts()).toEqual([]);

    // Every reader shows it: status (both forms), items and the owner's board.
    const status = JSON.parse((await runCli(['status', '--json'], env)).stdout);
    expect(status.queue.find((t: Ticket) => t.id === 't_codex000000').hold).toEqual(held?.hold);
    expect((await runCli(['status'], env)).stdout).toMatch(
      /t_codex000000 .*codex quota exhausted, \d+s left/,
    );
    const items = JSON.parse((await runCli(['items', '--json', '--owner', suite.caller.pane], env)).stdout);
    expect(items.queue.find((t: Ticket) => t.id === 't_codex000000').hold).toEqual(held?.hold);
    const board = JSON.parse((await runCli(['board', '--json', '--owner', suite.caller.pane], env)).stdout);
    const rows = board.groups.flatMap(
      (g: { rows: Array<{ id: string; reason: string | null; group: string }> }) => g.rows,
    );
    expect(rows.find((r: { id: string }) => r.id === 't_codex000000')).toMatchObject({
      group: 'waiting',
      reason: 'codex quota exhausted: every account is at 100% until its reset',
    });

    // After the reset: admitted, its hold cleared, its work started once.
    const admitted = await waitFor(
      'the admission after the reset',
      async () => {
        const ticket = await byId('t_codex000000');
        return ticket?.state === 'admitted' ? ticket : undefined;
      },
      { timeoutMs: RESET_AHEAD_MS + 20_000 },
    );
    expect(admitted.state_ms).toBeGreaterThanOrEqual(reset);
    expect(admitted.hold ?? null).toBeNull();
    await waitFor('an agent to start', async () => ((await agentStarts()).length > 0 ? true : undefined), {
      timeoutMs: 15_000,
    });
    expect(await agentStarts()).toEqual(['codex']);
  });

  it('holds nothing with hold_when_exhausted = false, nor a harness whose pool has room', async () => {
    await serving('\n[quota]\nhold_when_exhausted = false\n');
    await exhaustedCodex(Date.now() + 10 * 60_000);
    const now = Date.now();
    await appendTickets(suite.box, [
      await agentTicket('t_codex000000', 'codex', now),
      await agentTicket('t_claude00000', 'claude', now + 1),
    ]);
    for (const id of ['t_codex000000', 't_claude00000']) {
      const ticket = await waitFor(
        'the ticket admitted',
        async () => {
          const found = await byId(id);
          return found?.state === 'admitted' ? found : undefined;
        },
        { timeoutMs: 20_000 },
      );
      expect(ticket.hold ?? null).toBeNull();
    }
    await waitFor(
      'both agents to start',
      async () => ((await agentStarts()).length === 2 ? true : undefined),
      { timeoutMs: 15_000 },
    );
    expect((await agentStarts()).sort()).toEqual(['claude', 'codex']);
  });
});
