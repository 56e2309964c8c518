// Quota-aware admission through a real `serve` (fake /proc with room for 5): a ticket whose harness's
// pool is exhausted in quota.json stays queued with the reason on it (queue.json, status, items,
// the board), a job queued after it is admitted past it, and it is admitted in the service's first
// pass after the reset, its hold cleared. With the key off, nothing waits.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Ticket } from '../../service/state/work-schemas.js';
import { eventually, runCli, type Sandbox, sandbox, type startCli } from '../helpers/cli.js';
import {
  appendTickets,
  killAll,
  roomFor5,
  startServe,
  ticketFixture,
  tickets,
  untilEligible,
} from './job-queue-fixtures.js';

let box: Sandbox;
let stopTicker: () => void = () => undefined;
const running: Array<ReturnType<typeof startCli>> = [];

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  stopTicker();
  await killAll(running);
  await box.cleanup();
});

/** Far enough ahead that the held ticket is seen waiting first, even on a loaded machine. */
const RESET_AHEAD_MS = 20_000;
const OWNER = 'w1:p1';

/** A fresh snapshot: every Codex account at 100% until `resets_ms`, Claude with room. */
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
  await writeFile(join(box.state, 'quota.json'), JSON.stringify(snapshot), { mode: 0o600 });
}

/** A ticket that names `harness` (as an agent ticket does) and runs a command recording its start. */
function named(id: string, harness: string | null, created_ms: number): Ticket {
  const request = {
    command: ['sh', '-c', `echo ${id} >> ${join(box.root, 'starts.log')}`],
    cwd: box.root,
    timeout_ms: null,
    idle_timeout_ms: null,
    caller_workspace: null,
  };
  const ticket = ticketFixture({ id, owner: OWNER, created_ms, state_ms: created_ms, request });
  return harness === null ? ticket : ({ ...ticket, agent: { kind: harness } } as Ticket);
}

async function starts(): Promise<string[]> {
  return (await readFile(join(box.root, 'starts.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

async function serving(config = ''): Promise<NodeJS.ProcessEnv> {
  const host = await roomFor5(box, 60_000);
  stopTicker = host.stop;
  if (config !== '') await writeFile(box.configPath, `${await readFile(box.configPath, 'utf8')}${config}`);
  startServe(host.env, running);
  await untilEligible(box);
  return host.env;
}

const byId = async (id: string) => (await tickets(box)).find((t) => t.id === id);

describe('quota-aware admission', () => {
  it('keeps a ticket of an exhausted pool queued with its reason, admits work past it, and it after the reset', async () => {
    const env = await serving();
    const reset = Date.now() + RESET_AHEAD_MS;
    await exhaustedCodex(reset);
    const now = Date.now();
    await appendTickets(box, [named('t_codex000000', 'codex', now), named('t_job00000000', null, now + 1)]);

    // The job queued after it is admitted; the Codex ticket waits, with the reason on it.
    await eventually(
      async () => ((await byId('t_job00000000'))?.state === 'admitted' ? true : undefined),
      20_000,
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
    expect(await starts()).not.toContain('t_codex000000');

    // Every reader shows it: status (both forms), items and the owner's board.
    const status = JSON.parse((await runCli(['status', '--json'], env)).stdout);
    expect(status.queue.find((t: Ticket) => t.id === 't_codex000000').hold).toEqual(held?.hold);
    expect((await runCli(['status'], env)).stdout).toMatch(
      /t_codex000000 .*codex quota exhausted, \d+s left/,
    );
    const items = JSON.parse((await runCli(['items', '--json', '--owner', OWNER], env)).stdout);
    expect(items.queue.find((t: Ticket) => t.id === 't_codex000000').hold).toEqual(held?.hold);
    const board = JSON.parse((await runCli(['board', '--json', '--owner', OWNER], env)).stdout);
    const rows = board.groups.flatMap(
      (g: { rows: Array<{ id: string; reason: string | null; group: string }> }) => g.rows,
    );
    expect(rows.find((r: { id: string }) => r.id === 't_codex000000')).toMatchObject({
      group: 'waiting',
      reason: 'codex quota exhausted: every account is at 100% until its reset',
    });

    // After the reset: admitted, its hold cleared, its work started once.
    const admitted = await eventually(
      async () => {
        const ticket = await byId('t_codex000000');
        return ticket?.state === 'admitted' ? ticket : undefined;
      },
      RESET_AHEAD_MS + 20_000,
      'the admission after the reset',
    );
    expect(admitted.state_ms).toBeGreaterThanOrEqual(reset);
    expect(admitted.hold ?? null).toBeNull();
    await eventually(async () => ((await starts()).includes('t_codex000000') ? true : undefined), 15_000);
    expect((await starts()).filter((tag) => tag === 't_codex000000')).toHaveLength(1);
  }, 90_000);

  it('holds nothing with hold_when_exhausted = false, nor a harness whose pool has room', async () => {
    await serving('\n[quota]\nhold_when_exhausted = false\n');
    await exhaustedCodex(Date.now() + 10 * 60_000);
    const now = Date.now();
    await appendTickets(box, [
      named('t_codex000000', 'codex', now),
      named('t_claude00000', 'claude', now + 1),
    ]);
    for (const id of ['t_codex000000', 't_claude00000']) {
      const ticket = await eventually(async () => {
        const found = await byId(id);
        return found?.state === 'admitted' ? found : undefined;
      }, 20_000);
      expect(ticket.hold ?? null).toBeNull();
    }
  }, 60_000);
});
