// Budgets through a real `serve` and the fake Herdr with fake Claude children (whose transcripts
// record realistic usage): with `[budget.owner] usd_per_day`, a running child's transcript so far and
// a finished child's receipt count; once the owner's day is spent, `dogsled agent` queues the next
// child with the reason (exit 1), the board's WAITING row says it, the service writes the same hold
// on a child queued for room, the running child runs on, and a larger budget admits both. The page
// (`dogsled dash`) shows the receipt and the reason, and its Close ends the running child.

import { readFile, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { escapeText } from '../../../dash/view/html.js';
import type { Ticket } from '../../../service/core/placement/queue-types.js';
import { receiptText } from '../../../service/core/receipts/receipt.js';
import { statePaths } from '../../../service/state/paths.js';
import { writeTaskFile } from '../../../service/state/records/launch-files.js';
import { runCli, startCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import {
  appendTickets,
  killAll,
  roomFor5,
  startServe,
  ticketFixture,
  tickets,
  untilEligible,
} from '../jobs/job-queue-fixtures.js';
import { agentCli, agentSuite, items, type Json, paneIds, quickTask } from './agent-fixtures.js';

const suite = agentSuite({ serviceLock: false });
let stopTicker: () => void = () => undefined;
const running: Array<ReturnType<typeof startCli>> = [];

afterEach(async () => {
  stopTicker();
  await killAll(running);
});

/**
 * A time zone in which it is about noon now: the budget's day runs from local midnight, and a test
 * that crossed one would see its spend start over.
 */
function noonZone(): string {
  const offset = 12 - new Date().getUTCHours();
  // Etc/GMT zones are named with the sign reversed: Etc/GMT-3 is three hours ahead of UTC.
  return offset === 0 ? 'Etc/UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

async function setBudget(config: string, usd: number): Promise<void> {
  await writeFile(suite.box.configPath, `${config}\n[budget.owner]\nusd_per_day = ${usd}\n`);
}

/** A fake child's task whose every model response uses `output` tokens of Claude Sonnet ($15 a million). */
function costlyTask(output: number, steps: unknown[]): string {
  const usage = { input: 0, output, cache_read: 0, cache_write: 0 };
  return `Spend.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps, usage })}\n\`\`\`\n`;
}
/** A tenth of a cent a response: the runner stays far below any budget here. */
const RUNNER = costlyTask(66, [{ reply: 'Here.' }]);
/** $1.50 a response: one finished child spends any budget here. */
const SPENDER = costlyTask(100_000, [
  { reply: 'Starting.' },
  { sleep_ms: 400 },
  { run: 'dogsled done' },
  { reply: 'Done.' },
]);

/** A request to the page's server as the page makes it: its token, its origin, JSON. */
function dashRequest(
  url: string,
  method: 'GET' | 'POST',
  path?: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  const page = new URL(url);
  const token = page.searchParams.get('token') ?? '';
  const headers: Record<string, string> =
    method === 'GET'
      ? {}
      : { origin: page.origin, 'content-type': 'application/json', 'x-dogsled-token': token };
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: page.hostname,
        port: page.port,
        method,
        path: path ?? `${page.pathname}${page.search}`,
        headers,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const byId = async (id: string) => (await tickets(suite.box)).find((t) => t.id === id);

/** A child ticket as `dogsled agent` leaves it on a full host: task file first, no hold. */
async function childTicket(id: string): Promise<Ticket> {
  const launch = `l_${id.slice(2)}`;
  await writeTaskFile(statePaths(suite.box.state), launch, quickTask());
  const now = Date.now();
  const base = ticketFixture({ id, owner: suite.caller.pane, created_ms: now, state_ms: now });
  const agent = {
    launch,
    kind: 'claude' as const,
    name: id.replaceAll('_', '-'),
    profile: null,
    branch: null,
    base: null,
    cwd: suite.scratch,
    caller_workspace: suite.caller.workspace,
  };
  return { ...base, kind: 'agent', request: null, agent };
}

describe('a day budget per owner', () => {
  it("queues the owner's next child once its children spent the day, never stops one that runs, and admits it when the budget grows", async () => {
    const zone = noonZone();
    const host = await roomFor5(suite.box, 60_000);
    stopTicker = host.stop;
    const config = await readFile(suite.box.configPath, 'utf8');
    await setBudget(config, 1);
    const env: NodeJS.ProcessEnv = { ...suite.env, TZ: zone };
    const { HERDR_PANE_ID: _pane, ...serveEnv } = { ...env, ...host.env };
    startServe({ ...serveEnv, HERDR_SOCKET_PATH: env.HERDR_SOCKET_PATH, PATH: env.PATH }, running);
    await untilEligible(suite.box);

    // A child that answers once and stays: its transcript so far costs a fraction of a cent.
    const runner = await agentCli(
      suite,
      ['--kind', 'claude', '--name', 'runner', '--json', '--message', RUNNER],
      {
        env,
      },
    );
    expect({ code: runner.code, stderr: runner.stderr }).toEqual({ code: 0, stderr: '' });
    const runnerDoc = JSON.parse(runner.stdout);
    await waitFor(
      "the runner's transcript in the snapshot",
      async () => {
        const snapshot = JSON.parse(await readFile(join(suite.box.state, 'host.json'), 'utf8'));
        const pane = snapshot.probe.agent_panes.find((p: Json) => p.terminal_id === runnerDoc.terminal_id);
        return pane?.transcript ? pane : undefined;
      },
      { timeoutMs: 20_000 },
    );

    // Still under the budget: the next child starts, and finishes with its receipt.
    const first = await agentCli(
      suite,
      ['--kind', 'claude', '--name', 'first', '--json', '--message', SPENDER],
      {
        env,
      },
    );
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    const finished = await waitFor(
      'the first child finished with its receipt',
      async () => (await items(suite)).find((i) => i.name === 'first' && i.closed_ms !== null && i.receipt),
      { timeoutMs: 30_000 },
    );
    expect(finished.receipt?.usd).toBeGreaterThanOrEqual(1.5);

    // The owner's day is spent: the next child waits, with the reason, and exits 1 (queued).
    const third = await agentCli(suite, ['--kind', 'claude', '--name', 'third', '--message', quickTask()], {
      env,
    });
    const reason = /^budget: owner w\S+ spent \$\d+\.\d\d of its \$1\.00 today$/;
    expect(third.code).toBe(1);
    expect(third.stdout).toMatch(/budget: owner w\S+ spent \$\d+\.\d\d of its \$1\.00 today/);
    expect(third.stdout).toContain('the service starts it when its hold ends');
    const held = (await tickets(suite.box)).find((t) => t.agent?.name === 'third');
    expect(held).toMatchObject({
      state: 'pending',
      hold: { pool: 'budget', reason: expect.stringMatching(reason) },
    });
    const board = JSON.parse((await runCli(['board', '--json'], env)).stdout);
    const rows = board.groups.flatMap((g: Json) => g.rows);
    expect(rows.find((r: Json) => r.id === held?.id)).toMatchObject({
      group: 'waiting',
      reason: held?.hold?.reason,
    });
    expect((await runCli(['status'], env)).stdout).toMatch(/queued [^·]+· budget spent today, [\dhm ]+ left/);

    // A child queued for room (as `agent` leaves one on a full host) gets the same hold from the
    // service, which writes the new amount when the budget changes and admits neither.
    await appendTickets(suite.box, [await childTicket('t_roomwait0000')]);
    await waitFor('the service to hold the queued child', async () =>
      (await byId('t_roomwait0000'))?.hold?.pool === 'budget' ? true : undefined,
    );
    await setBudget(config, 1.25);
    await waitFor('the holds to name the new budget', async () => {
      const all = await tickets(suite.box);
      const pending = all.filter((t) => t.state === 'pending');
      return pending.length === 2 && pending.every((t) => t.hold?.reason.endsWith('of its $1.25 today'))
        ? true
        : undefined;
    });

    // The running child was never stopped by any of it.
    const runnerItem = (await items(suite)).find((i) => i.id === runnerDoc.item);
    expect(runnerItem?.closed_ms).toBeNull();
    expect(await paneIds(suite.herdr)).toContain(runnerDoc.pane);

    // The page shows the finished child's receipt and why the next one waits; its Close is the
    // CLI's close, which ends the running child and keeps its receipt.
    const dash = startCli(['dash'], env);
    running.push(dash);
    const url = await waitFor('the URL dash prints', () => dash.output().match(/^http:\/\/\S+$/m)?.[0], {
      timeoutMs: 20_000,
    });
    const page = await dashRequest(url, 'GET');
    expect(page.status).toBe(200);
    expect(page.body).toContain(receiptText(finished.receipt));
    const waiting = await byId(held?.id ?? '');
    expect(page.body).toContain(escapeText(waiting?.hold?.reason ?? 'no hold'));
    const closed = await dashRequest(url, 'POST', '/close', { pane: runnerDoc.pane });
    expect({ status: closed.status, body: JSON.parse(closed.body) }).toEqual({
      status: 200,
      body: { ok: true, message: `closed ${runnerDoc.pane}` },
    });
    const runnerClosed = (await items(suite)).find((i) => i.id === runnerDoc.item);
    expect(runnerClosed).toMatchObject({ close_reason: 'closed', receipt: { model: expect.any(String) } });
    // A pane that is no open child is refused: the page closes children, not any pane.
    const refused = await dashRequest(url, 'POST', '/close', { pane: suite.caller.pane });
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body).message).toContain('no open child in pane');

    // A larger budget: both are admitted at the service's next pass, their holds cleared.
    await setBudget(config, 100);
    for (const id of [held?.id as string, 't_roomwait0000']) {
      const admitted = await waitFor(
        'the held child admitted',
        async () => {
          const ticket = await byId(id);
          return ticket?.state === 'admitted' ? ticket : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(admitted.hold ?? null).toBeNull();
    }
  });
});
