// `dogsled dash` in a real browser (Debian's chromium through playwright-core, one launch for the
// file): the page loads with this host (its charts from samples.jsonl), an owner's running job and a
// finished child with its receipt; it updates by itself when the job ends; Stop asks first and stops
// a job through the CLI's own action; text a state file holds (a child's name full of markup and
// terminal escapes) shows as text; the page follows the system's dark theme; and the server refuses
// a request without this run's token, from another origin, or to another host name.

import { mkdir, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../../service/core/agents/item-types.js';
import { historyEntry } from '../../../service/core/history/history-entry.js';
import { appendHistory } from '../../../service/history/history-file.js';
import { statePaths } from '../../../service/state/paths.js';
import { updateItems } from '../../../service/state/records/queue-items.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { itemFixture } from '../../helpers/job-fixtures.js';
import { freshHost, gatedScript } from '../../helpers/run-fixtures.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { waitFor } from '../../helpers/wait.js';

const CHROMIUM = process.env.DOGSLED_TEST_CHROMIUM_PATH ?? '/usr/bin/chromium';
const OWNER = 'w9:p9';
const HOSTILE = '<img src=x onerror="window.__pwned=1">\u001b[31mred\u001b]0;title\u0007';
const RECEIPT = {
  tokens: 18_666,
  usd: 0.0106,
  turns: 1,
  model: 'claude-sonnet-4-5-20250929',
  models: [
    {
      model: 'claude-sonnet-4-5-20250929',
      input: 6,
      output: 240,
      cache_read: 18_000,
      cache_write: 420,
      turns: 1,
      usd: 0.0106,
    },
  ],
  prices_as_of: '2025-11-24',
  wall_ms: 41_000,
};

let box: Sandbox;
let lock: ServiceLock;
let browser: Browser;
let page: Page;
let dash: ReturnType<typeof startCli>;
let url: string;
let env: NodeJS.ProcessEnv;
let gate: ReturnType<typeof gatedScript>;
const jobs: { gated: string; long: string } = { gated: '', long: '' };

/** A day of samples at five-minute steps: busy climbs, memory stays at half. */
async function writeSamples(): Promise<void> {
  const now = Date.now();
  const lines: string[] = [];
  for (let ts = now - 86_400_000; ts <= now; ts += 300_000) {
    const busy = ((ts / 300_000) % 10) / 10;
    lines.push(
      JSON.stringify({ ts_ms: ts, busy, memory: { total_bytes: 32 * 2 ** 30, free_bytes: 16 * 2 ** 30 } }),
    );
  }
  await writeFile(join(box.state, 'samples.jsonl'), `${lines.join('\n')}\n`, { mode: 0o600 });
}

/** Two children that finished: a plain one (in history.jsonl) and one whose name is hostile. */
async function writeFinishedChildren(): Promise<void> {
  const io = { paths: statePaths(box.state), now: Date.now, warn: () => undefined };
  const ended = Date.now() - 60_000;
  const child = (id: string, name: string): Item =>
    itemFixture({
      id,
      kind: 'agent',
      owner: OWNER,
      name,
      harness: 'claude',
      model: 'claude-sonnet-4-5-20250929',
      created_ms: ended - 41_000,
      closed_ms: ended,
      close_reason: 'done',
      receipt: RECEIPT,
      command: undefined,
    });
  const plain = child('i_finished0001', 'unit-claude');
  await appendHistory(io, [historyEntry({ ...plain, closed_ms: ended }, undefined, 'Add the parser.')]);
  await updateItems(io, (items) => ({
    result: undefined,
    next: { ...items, items: [...items.items, plain, child('i_hostile00001', HOSTILE)] },
  }));
}

async function startJob(script: string): Promise<string> {
  const result = await runCli(['run', '--json', '--cwd', box.root, '--', 'sh', '-c', script], env);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout).job;
}

/** The status line of a raw request to the server, with the headers given (Host included). */
function rawStatus(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body = '',
): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const rowSelector = (id: string, group: string) => `li.row[data-id="${id}"][data-group="${group}"]`;

beforeAll(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
  await freshHost(box.state, true);
  await writeSamples();
  await writeFinishedChildren();
  await mkdir(join(box.root, 'work'), { recursive: true });
  // A caller in a Herdr pane whose Herdr does not answer: its jobs run headless, owned by its pane.
  env = {
    ...box.env,
    HERDR_ENV: '1',
    HERDR_PANE_ID: OWNER,
    HERDR_SOCKET_PATH: join(box.root, 'no-herdr.sock'),
  };
  gate = gatedScript(box.root);
  jobs.gated = await startJob(gate.script);
  jobs.long = await startJob('sleep 600');
  dash = startCli(['dash'], box.env);
  url = await waitFor(
    'the URL dash prints',
    () => dash.output().match(/^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/m)?.[0],
    {
      timeoutMs: 20_000,
    },
  );
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (dash && dash.exitCode === null) {
    dash.kill('SIGTERM');
    await exited(dash);
  }
  if (env) for (const job of Object.values(jobs)) if (job) await runCli(['stop', job], env);
  await lock?.release();
  await box?.cleanup();
});

describe('the dash page', () => {
  it('loads with this host and its charts, the running jobs and a finished child with its receipt', async () => {
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'sha256-");
    await page.waitForSelector('#live.ok');
    const host = page.locator('article.host[data-host="local"]');
    await expect(host.locator('.pill').textContent()).resolves.toBe('eligible');
    await expect(host.locator('figcaption').first().textContent()).resolves.toMatch(
      /last hour: busy \d+% avg/,
    );
    expect(await host.locator('polyline.busy').count()).toBeGreaterThan(0);
    const board = page.locator(`article.board[data-owner="${OWNER}"]`);
    await board.locator(rowSelector(jobs.gated, 'running')).waitFor();
    await board.locator(rowSelector(jobs.long, 'running')).waitFor();
    const receipt = page.locator('table.receipts tr[data-id="i_finished0001"]');
    await expect(receipt.locator('td.receipt').textContent()).resolves.toContain('19k tok · $0.01');
    await expect(receipt.textContent()).resolves.toContain('unit-claude');
    await expect(page.locator('table.history').textContent()).resolves.toContain('unit-claude (claude)');
    await expect(page.locator('table.stats').first().textContent()).resolves.toContain('$0.01');
  });

  it('shows text from state files as text: no markup runs, no escape reaches the page', async () => {
    const row = page.locator('table.receipts tr[data-id="i_hostile00001"]');
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('<img src=x onerror="window.__pwned=1">red');
    expect(text).not.toMatch(/[\u001b\u0007]/);
    expect(await row.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  it('updates by itself when a job ends', async () => {
    const updates = Number(await page.evaluate('document.body.dataset.updates ?? 0'));
    await gate.open();
    // DONE is folded: the row is there, not shown.
    await page.waitForSelector(rowSelector(jobs.gated, 'done'), { state: 'attached', timeout: 15_000 });
    expect(Number(await page.evaluate('document.body.dataset.updates'))).toBeGreaterThan(updates);
  });

  it('asks before Stop, and stops the job through the action `dogsled stop` calls', async () => {
    const stop = page.locator(`${rowSelector(jobs.long, 'running')} button[data-action="stop"]`);
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
    });
    page.once('dialog', (dialog) => void dialog.dismiss());
    await stop.click();
    // Declined: nothing was sent, and the job still runs.
    await page.locator(rowSelector(jobs.long, 'running')).waitFor();
    expect(posts).toEqual([]);
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await stop.click();
    await page.waitForSelector(`#notice:text("${jobs.long} stopped")`, { timeout: 15_000 });
    expect(question).toContain(`Stop job ${jobs.long}?`);
    expect(posts).toEqual(['/stop']);
    const done = page.locator(rowSelector(jobs.long, 'done'));
    await done.waitFor({ state: 'attached', timeout: 15_000 });
    await expect(done.locator('.pill').textContent()).resolves.toBe('stopped');
  });

  it('follows the system theme', async () => {
    const background = () => page.evaluate('getComputedStyle(document.body).backgroundColor');
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).not.toBe(light);
  });

  it('refuses a request without the token, with another token, from another origin or host', async () => {
    const bare = url.replace(/\?token=.*$/, '');
    const refused = await page.goto(bare);
    expect(refused?.status()).toBe(403);
    await expect(page.textContent('body')).resolves.toContain('refused: no token');
    expect((await page.goto(`${bare}?token=not-this-one`))?.status()).toBe(403);
    const { host, pathname, search } = new URL(url);
    const path = `${pathname}${search}`;
    expect(await rawStatus(path, { host })).toBe(200);
    expect(await rawStatus(path, { host: `evil.example:${new URL(url).port}` })).toBe(403);
    expect(await rawStatus(path, { host, origin: 'http://evil.example' })).toBe(403);
    expect(await rawStatus(`/events${search}`, { host, 'sec-fetch-site': 'cross-site' })).toBe(403);
    const token = new URL(url).searchParams.get('token') ?? '';
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ ref: jobs.long });
    // Stop from elsewhere: a form post, another origin, the token only in the URL: none gets through.
    expect(
      await rawStatus(
        '/stop',
        { host, origin: 'http://evil.example', 'x-dogsled-token': token, ...json },
        'POST',
        body,
      ),
    ).toBe(403);
    expect(await rawStatus(`/stop${search}`, { host, origin: `http://${host}`, ...json }, 'POST', body)).toBe(
      403,
    );
    expect(
      await rawStatus(
        '/stop',
        { host, origin: `http://${host}`, 'x-dogsled-token': token, 'content-type': 'text/plain' },
        'POST',
        body,
      ),
    ).toBe(415);
  });
});
