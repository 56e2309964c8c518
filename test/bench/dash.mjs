// `dogsled dash`'s costs, each against a floor measured in the same run (markdown tables):
// - first page: from spawning `dogsled dash` to the whole first page received (its URL read from
//   stdout, then one GET with the token), against a bare Node HTTP server spawned and asked the same
//   way; the budget is 300 ms; and until the page's stream has completed it (history, receipts,
//   budgets and the day's charts, which the first page leaves to it);
// - update: from a state file replaced (items.json, one child more or less on an owner's board) to
//   the page's event stream delivering the changed section; the budget is 1 s;
// - idle CPU: a page connected and nothing changing, over a minute (budget: under 0.2% of a core),
//   against an idle `node` over the same seconds; and, for scale, with a `serve` publishing every 10 s.
// The state dir holds a day of samples (one each 10 s), 2,000 history entries and 40 items, as a busy
// host has them. Needs a built dist/. NODE_EXTRA_CA_CERTS is unset for every process it starts.
// BENCH_RUNS, BENCH_UPDATES and BENCH_IDLE_SECONDS shorten it.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, median, procStat } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const UPDATES = Number(process.env.BENCH_UPDATES ?? 30);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const TICK = 100;
const GIB = 1024 ** 3;
const dir = mkdtempSync(join(tmpdir(), 'dogsled-bench-dash-'));
const state = join(dir, 'state');
const home = join(dir, 'home');
mkdirSync(state, { recursive: true, mode: 0o700 });
mkdirSync(home, { recursive: true });
writeFileSync(join(dir, 'config.toml'), '[budget.owner]\nusd_per_day = 20\n');
const env = { ...process.env, DOGSLED_STATE: state, HOME: home, DOGSLED_CONFIG: join(dir, 'config.toml') };
delete env.NODE_EXTRA_CA_CERTS;
delete env.HERDR_PANE_ID;
delete env.TMUX;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function writeAtomic(name, text) {
  const path = join(state, name);
  writeFileSync(`${path}.tmp`, text, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

function item(i, now) {
  const closed = i % 2 === 0;
  return {
    id: `i_bench${String(i).padStart(7, '0')}`,
    kind: 'agent',
    host: 'local',
    pane: `w1:p${i}`,
    terminal_id: null,
    owner: `w1:p${i % 4}`,
    created_ms: now - 600_000,
    closed_ms: closed ? now - 60_000 : null,
    close_reason: closed ? 'done' : null,
    job: null,
    ticket: null,
    name: `child-${i}`,
    harness: 'claude',
    ...(closed ? { receipt: receipt() } : {}),
  };
}

function receipt() {
  return {
    tokens: 18_666,
    usd: 0.0106,
    turns: 1,
    model: 'claude-sonnet-4-5',
    models: [
      {
        model: 'claude-sonnet-4-5',
        input: 6,
        output: 240,
        cache_read: 18_000,
        cache_write: 420,
        turns: 1,
        usd: 0.0106,
      },
    ],
    prices_as_of: '2025-11-24',
    wall_ms: 540_000,
  };
}

function writeItems(count) {
  const now = Date.now();
  writeAtomic(
    'items.json',
    JSON.stringify({ version: 1, items: Array.from({ length: count }, (_, i) => item(i, now)) }),
  );
}

function seed() {
  const now = Date.now();
  const samples = [];
  for (let ts = now - 86_400_000; ts <= now; ts += 10_000) {
    samples.push(
      JSON.stringify({
        ts_ms: ts,
        busy: ((ts / 10_000) % 7) / 10,
        memory: { total_bytes: 64 * GIB, free_bytes: 30 * GIB },
      }),
    );
  }
  writeFileSync(join(state, 'samples.jsonl'), `${samples.join('\n')}\n`, { mode: 0o600 });
  const history = [];
  for (let i = 0; i < 2000; i++) {
    const ended = now - (2000 - i) * 60_000;
    history.push(
      JSON.stringify({
        v: 1,
        id: `i_h${i}`,
        kind: i % 3 === 0 ? 'job' : 'agent',
        host: i % 5 === 0 ? 'peer-1' : 'local',
        owner: `w1:p${i % 4}`,
        name: i % 3 === 0 ? 'make test' : `child-${i}`,
        harness: i % 3 === 0 ? null : 'claude',
        model: i % 3 === 0 ? null : 'claude-sonnet-4-5',
        branch: null,
        summary: 'Add the parser and its tests.',
        outcome: i % 7 === 0 ? 'closed' : 'finished',
        ok: i % 7 !== 0,
        started_ms: ended - 300_000,
        ended_ms: ended,
        duration_ms: 300_000,
        receipt: i % 3 === 0 ? null : receipt(),
      }),
    );
  }
  writeFileSync(join(state, 'history.jsonl'), `${history.join('\n')}\n`, { mode: 0o600 });
  writeItems(40);
}

/** GET `path` on the page's server, the whole body. */
function get(url) {
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** Spawns `argv`, reads its first stdout line (a URL), then GETs it whole: ms from the spawn. */
async function firstPage(argv) {
  const start = performance.now();
  const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(line);
    });
    child.on('exit', (code) => reject(new Error(`${argv.join(' ')} exited ${code}`)));
  });
  const page = await get(url);
  const ms = performance.now() - start;
  // CPU (user + system) the process spent to get here: what a loaded machine's wait does not inflate.
  const cpuMs = (procStat(child.pid).cpuTicks * 1000) / TICK;
  if (page.status !== 200) throw new Error(`first page: ${page.status}`);
  // The page's stream completes it: history, receipts, budgets and the day's charts.
  const complete = page.body.includes('Reading history') ? await completed(url, start) : ms;
  child.kill('SIGTERM');
  await exited(child);
  return { ms, cpuMs, complete, bytes: page.body.length };
}

/** ms from `start` until the page's stream has brought the history section. */
async function completed(url, start) {
  const page = new URL(url);
  const stream = await new Promise((resolve, reject) => {
    request(`${page.origin}/events${page.search}`, (response) => resolve(response))
      .on('error', reject)
      .end();
  });
  return new Promise((resolve) => {
    let buffer = '';
    stream.setEncoding('utf8').on('data', (chunk) => {
      buffer += chunk;
      // Whole events only: the last piece may be one still arriving.
      const events = buffer.split('\n\n');
      buffer = events.pop() ?? '';
      const done = events.some((event) => {
        const data = event.split('\n').find((line) => line.startsWith('data: '));
        const history = data ? JSON.parse(data.slice(6)).sections['history-body'] : undefined;
        return history !== undefined && !history.includes('Reading history');
      });
      if (done) {
        stream.destroy();
        resolve(performance.now() - start);
      }
    });
  });
}

const FLOOR_SERVER = `
const http = require('node:http');
const s = http.createServer((q, r) => { r.end('<!doctype html><p>floor</p>'); });
s.listen(0, '127.0.0.1', () => process.stdout.write('http://127.0.0.1:' + s.address().port + '/\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

/** A dash with one page connected, its events read; `onSections` receives each update's section ids. */
async function connected(onSections) {
  const child = spawn(process.execPath, [CLI, 'dash'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
  });
  const page = new URL(url);
  const stream = await new Promise((resolve, reject) => {
    request(`${page.origin}/events${page.search}`, (response) => resolve(response))
      .on('error', reject)
      .end();
  });
  let buffer = '';
  stream.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end < 0) break;
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.split('\n').find((line) => line.startsWith('data: '));
      if (event.startsWith('event: sections') && data)
        onSections(Object.keys(JSON.parse(data.slice(6)).sections));
    }
  });
  return { child, stream };
}

async function updates() {
  let waiting;
  const { child, stream } = await connected((ids) => {
    if (ids.includes('boards') && waiting) waiting();
  });
  await sleep(1000);
  const times = [];
  for (let i = 1; i <= UPDATES; i++) {
    const arrived = new Promise((resolve) => {
      waiting = resolve;
    });
    const start = performance.now();
    writeItems(i % 2 === 0 ? 40 : 41);
    await Promise.race([
      arrived,
      sleep(10_000).then(() => Promise.reject(new Error('no update within 10 s'))),
    ]);
    times.push(performance.now() - start);
    waiting = undefined;
    await sleep(200);
  }
  stream.destroy();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return times;
}

/** Resolves once `child` has exited (at once if it has). */
function exited(child) {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once('exit', r));
}

function cpuPercent(pid, from, seconds) {
  return (100 * (procStat(pid).cpuTicks - from)) / TICK / seconds;
}

async function idle(withServe) {
  const serve = withServe
    ? spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] })
    : undefined;
  let events = 0;
  const { child, stream } = await connected(() => {
    events += 1;
  });
  const floor = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', env });
  await sleep(3000);
  const a = procStat(child.pid).cpuTicks;
  const b = procStat(floor.pid).cpuTicks;
  const before = events;
  const t0 = Date.now();
  await sleep(IDLE_SECONDS * 1000);
  const wall = (Date.now() - t0) / 1000;
  const result = {
    cpu: cpuPercent(child.pid, a, wall),
    floor: cpuPercent(floor.pid, b, wall),
    rssMiB: procStat(child.pid).rssKiB / 1024,
    events: events - before,
  };
  floor.kill();
  stream.destroy();
  child.kill('SIGTERM');
  serve?.kill('SIGTERM');
  await exited(child);
  if (serve) await exited(serve);
  return result;
}

const step = (text) => process.stderr.write(`dash bench: ${text}\n`);

try {
  seed();
  step('first pages');
  const dash = [];
  const complete = [];
  const floor = [];
  let bytes = 0;
  // Paired: each round runs the dash and the floor, in alternating order.
  for (let i = 0; i < RUNS; i++) {
    const pair = [
      () => firstPage([process.execPath, CLI, 'dash']),
      () => firstPage([process.execPath, '-e', FLOOR_SERVER]),
    ];
    let a;
    let b;
    if (i % 2 === 0) {
      a = await pair[0]();
      b = await pair[1]();
    } else {
      b = await pair[1]();
      a = await pair[0]();
    }
    dash.push(a);
    floor.push(b);
    complete.push(a.complete);
    bytes = a.bytes;
  }
  const ratios = dash.map((one, i) => one.ms / (floor[i]?.ms ?? 1));
  step('updates');
  const update = await updates();
  step('idle');
  const quiet = await idle(false);
  step('with serve');
  const serving = await idle(true);
  const ms = (x) => `${x.toFixed(0)} ms`;
  console.log('| dash | median | floor | budget |');
  console.log('| --- | --- | --- | --- |');
  console.log(
    `| first page (${Math.round(bytes / 1024)} KiB: hosts and boards), spawn to last byte | ${ms(median(dash.map((x) => x.ms)))} (${median(ratios).toFixed(1)}x; CPU ${ms(median(dash.map((x) => x.cpuMs)))}) | ${ms(median(floor.map((x) => x.ms)))}, CPU ${ms(median(floor.map((x) => x.cpuMs)))} (a bare Node HTTP server) | 300 ms |`,
  );
  console.log(
    `| the page complete (history, receipts, budgets, the day's charts on its stream) | ${ms(median(complete))} | - | - |`,
  );
  console.log(
    `| update: items.json replaced to the section's event | ${ms(median(update))} (max ${ms(Math.max(...update))}) | - | 1 s |`,
  );
  console.log(
    `| idle CPU, a page connected, nothing changing (${IDLE_SECONDS} s) | ${quiet.cpu.toFixed(3)}% of a core, ${quiet.rssMiB.toFixed(0)} MiB, ${quiet.events} updates | ${quiet.floor.toFixed(3)}% (idle node) | 0.2% |`,
  );
  console.log(
    `| CPU with serve publishing every 10 s (${IDLE_SECONDS} s) | ${serving.cpu.toFixed(3)}% of a core, ${serving.events} updates | ${serving.floor.toFixed(3)}% (idle node) | - |`,
  );
} finally {
  // A service stopped a moment ago may still be writing its last file there.
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
