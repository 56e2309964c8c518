// The sidebar's costs, each against a floor measured in the same run (markdown tables):
// - start-up to first frame in a 38x45 tmux pane (hosts with sparklines, so blessed-contrib's
//   sparkline is loaded), against `node -e` printing one line in the same pane;
// - redraw (read + render, from DOGSLED_TIMING spans) and CPU with 20 hosts and 200 rows changing
//   every second, against an idle `node` process over the same seconds;
// - idle CPU with nothing changing, against the same idle `node`.
// Needs tmux and a built dist/. BENCH_RUNS and BENCH_SECONDS shorten it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, median, procStat } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const TICK = 100;
const GIB = 1024 ** 3;
const dir = mkdtempSync(join(tmpdir(), 'dogsled-bench-sidebar-'));
const state = join(dir, 'state');
const tmuxEnv = { ...process.env, TMUX_TMPDIR: dir, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };
delete tmuxEnv.TMUX;
let serial = 0;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmux = (name, ...args) =>
  execFileSync('tmux', ['-L', name, ...args], { env: tmuxEnv, encoding: 'utf8' });
const quote = (s) => `'${String(s).replaceAll("'", `'\\''`)}'`;

function hosts(tick) {
  return Array.from({ length: 20 }, (_, i) => ({
    id: `h${i}`,
    label: i === 0 ? 'local' : `peer-${i}`,
    local: i === 0,
    reachable: i !== 7,
    service: 'up',
    eligible: true,
    age_ms: 1000,
    reservations: 0,
    probe: {
      cores: 16,
      busy: ((i + tick) % 10) / 10,
      load1: 1,
      memory: { total_bytes: 64 * GIB, free_bytes: (20 + ((i + tick) % 30)) * GIB },
      disk: { total_bytes: 1000 * GIB, free_bytes: 300 * GIB },
    },
    busy_history: Array.from({ length: 12 }, (_, k) => ((i + k + tick) % 10) / 10),
  }));
}

/** 150 job items (records in jobs/) and 50 tickets for owner w1:p1; `tick` changes which jobs ended. */
function writeWork(tick) {
  mkdirSync(join(state, 'jobs'), { recursive: true });
  const now = Date.now();
  const items = [];
  for (let i = 0; i < 150; i++) {
    const id = `j_${i}`;
    const ended = (i + tick) % 5 === 0;
    const record = {
      version: 1,
      id,
      command: ['make', `t${i}`],
      cwd: '/repo',
      host: 'local',
      owner: 'w1:p1',
      pane: `w2:p${i}`,
      created_ms: now - 60_000,
      started_ms: now - 50_000,
      ended_ms: ended ? now : null,
      exit_code: ended ? i % 2 : null,
      signal: null,
      reason: null,
    };
    writeFileSync(join(state, 'jobs', `${id}.json`), JSON.stringify(record));
    items.push({
      id: `i${i}`,
      kind: 'job',
      host: 'local',
      pane: `w2:p${i}`,
      terminal_id: null,
      owner: 'w1:p1',
      created_ms: now - 60_000,
      closed_ms: null,
      close_reason: null,
      job: id,
      ticket: null,
    });
  }
  const tickets = Array.from({ length: 50 }, (_, i) => ({
    id: `t_${i}`,
    kind: 'job',
    created_ms: now - 30_000 + i + tick,
    owner: 'w1:p1',
    pin: null,
    request: {
      command: ['make', 'lint'],
      cwd: '/repo',
      timeout_ms: null,
      idle_timeout_ms: null,
      caller_workspace: null,
    },
    waiting: false,
    state: 'pending',
    state_ms: now,
    admitter: null,
    host: null,
    reservation: null,
    job: null,
    item: null,
    error: null,
    notice: null,
  }));
  writeFileSync(join(state, 'items.json.tmp'), JSON.stringify({ version: 1, items }));
  execFileSync('mv', [join(state, 'items.json.tmp'), join(state, 'items.json')]);
  writeFileSync(join(state, 'queue.json.tmp'), JSON.stringify({ version: 1, tickets }));
  execFileSync('mv', [join(state, 'queue.json.tmp'), join(state, 'queue.json')]);
  writeFileSync(join(dir, 'hosts.json.tmp'), JSON.stringify({ hosts: hosts(tick) }));
  execFileSync('mv', [join(dir, 'hosts.json.tmp'), join(dir, 'hosts.json')]);
}

/** Starts `command` (a shell line) in a fresh 38x45 tmux session; returns its name and the pane's pid. */
function session(command) {
  serial += 1;
  const name = `bench${process.pid}-${serial}`;
  tmux(name, '-f', '/dev/null', 'new-session', '-d', '-s', 'S', '-x', '38', '-y', '45', command);
  const pid = Number(tmux(name, 'display-message', '-p', '-t', 'S', '#{pane_pid}').trim());
  return { name, pid };
}

async function until(name, text) {
  for (;;) {
    const screen = tmux(name, 'capture-pane', '-p', '-t', 'S');
    if (screen.includes(text)) return;
    await sleep(2);
  }
}

function sidebarCommand(log) {
  const env = {
    HOME: dir,
    DOGSLED_STATE: state,
    DOGSLED_TEST: '1',
    DOGSLED_TEST_SIDEBAR_HOSTS: join(dir, 'hosts.json'),
    DOGSLED_TIMING: log ? '1' : '0',
    TERM: 'xterm-256color',
    PATH: process.env.PATH,
    HERDR_CONFIG_PATH: join(dir, 'none.toml'),
  };
  const assignments = Object.entries(env).map(([k, v]) => quote(`${k}=${v}`));
  const redirect = log ? `2>${quote(log)}` : '2>/dev/null';
  return `exec env -i ${assignments.join(' ')} ${quote(process.execPath)} ${quote(CLI)} sidebar --owner w1:p1 ${redirect}`;
}

async function startup() {
  const sidebar = [];
  const floor = [];
  for (let i = 0; i < RUNS; i++) {
    let start = performance.now();
    const a = session(sidebarCommand());
    await until(a.name, 'Agents & Jobs');
    sidebar.push(performance.now() - start);
    tmux(a.name, 'kill-server');
    start = performance.now();
    const b = session(
      `exec ${quote(process.execPath)} -e "process.stdout.write('READY'); setTimeout(() => {}, 1e6)"`,
    );
    await until(b.name, 'READY');
    floor.push(performance.now() - start);
    tmux(b.name, 'kill-server');
  }
  return { sidebar: median(sidebar), floor: median(floor) };
}

function cpuPercent(pid, from, seconds) {
  return (100 * (procStat(pid).cpuTicks - from)) / TICK / seconds;
}

async function resident(changing) {
  const log = join(dir, `timing-${changing ? 'busy' : 'idle'}.log`);
  const s = session(sidebarCommand(log));
  await until(s.name, 'Agents & Jobs');
  const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await sleep(2000);
  const a = procStat(s.pid).cpuTicks;
  const b = procStat(idle.pid).cpuTicks;
  const t0 = Date.now();
  writeFileSync(log, '');
  for (let tick = 1; tick <= SECONDS; tick++) {
    if (changing) writeWork(tick);
    await sleep(1000);
  }
  const wall = (Date.now() - t0) / 1000;
  const result = {
    cpu: cpuPercent(s.pid, a, wall),
    floor: cpuPercent(idle.pid, b, wall),
    rssMiB: procStat(s.pid).rssKiB / 1024,
  };
  idle.kill();
  tmux(s.name, 'kill-server');
  const spans = (name) =>
    [...readFileSync(log, 'utf8').matchAll(new RegExp(`timing span ${name} ([\\d.]+)ms`, 'g'))].map((m) =>
      Number(m[1]),
    );
  return { ...result, read: spans('sidebar read'), render: spans('sidebar render') };
}

const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? NaN;

try {
  writeWork(0);
  const up = await startup();
  const busy = await resident(true);
  const quiet = await resident(false);
  const f = (n) => n.toFixed(1);
  console.log('\n### sidebar\n');
  console.log('| measure | sidebar | floor | ratio |');
  console.log('| --- | --- | --- | --- |');
  console.log(
    `| start-up to first frame (38x45 tmux) | ${f(up.sidebar)} ms | ${f(up.floor)} ms (\`node -e\` printing a line) | ${(up.sidebar / up.floor).toFixed(2)}x |`,
  );
  console.log(
    `| CPU, 20 hosts and 200 rows changing every second | ${f(busy.cpu)}% of a core | ${f(busy.floor)}% (idle node) | +${f(busy.cpu - busy.floor)} points |`,
  );
  console.log(
    `| CPU, nothing changing | ${f(quiet.cpu)}% of a core | ${f(quiet.floor)}% (idle node) | +${f(quiet.cpu - quiet.floor)} points |`,
  );
  console.log(
    `| redraw: read, median / p95 (${busy.read.length}) | ${f(median(busy.read))} / ${f(p95(busy.read))} ms | | |`,
  );
  console.log(
    `| redraw: render, median / p95 (${busy.render.length}) | ${f(median(busy.render))} / ${f(p95(busy.render))} ms | | |`,
  );
  console.log(`| resident memory while changing | ${f(busy.rssMiB)} MiB | | |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
