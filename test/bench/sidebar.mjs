// The sidebar's costs, each against a floor measured in the same run (markdown tables):
// - first paint: from the process's start to its first frame (DOGSLED_TIMING's `sidebar first frame`,
//   the frame written ahead of blessed, Node's own start included, and the CPU the process used until
//   then), and to blessed's frame, when keys act (`sidebar interactive`), with 20 hosts and 200 rows
//   and with an empty state dir, in a UTF-8 locale as a user's terminal has (the frame ahead of
//   blessed is drawn only there), and the 200 rows once more without one, alternating, and on the
//   screen of a 38x45 tmux pane against `node -e` printing one line in the same pane (starts of
//   their own: reading the screen every 2 ms is a process each, which would take the CPU the
//   marked starts are timed by); the budget is 150 ms. A build's first start, which has no code
//   cache yet and writes it, is reported apart;
// - chokidar: its load and first scan, which come after the first frame (`sidebar watching`);
// - repaint: from a state file replaced (queue.json, one ticket more or less) to the screen showing
//   it, read back with capture-pane; the budget is 100 ms;
// - CPU with 20 hosts and 200 rows changing every second, and idle with nothing changing over a
//   minute (budget: under 0.2% of a core), against an idle `node` process over the same seconds.
// Needs tmux and a built dist/. NODE_EXTRA_CA_CERTS is unset for every process it starts (each Node
// start would load the bundle otherwise). BENCH_RUNS, BENCH_SECONDS, BENCH_IDLE_SECONDS and
// BENCH_REPAINTS shorten it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, median, procStat, ROOT } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const REPAINTS = Number(process.env.BENCH_REPAINTS ?? 20);
/** Idle CPU is a few short redraws a minute: measured over a minute at least. */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const TICK = 100;
const GIB = 1024 ** 3;
const dir = mkdtempSync(join(tmpdir(), 'dogsled-bench-sidebar-'));
const state = join(dir, 'state');
const emptyState = join(dir, 'empty-state');
const cleanEnv = { ...process.env };
delete cleanEnv.NODE_EXTRA_CA_CERTS;
delete cleanEnv.TMUX;
const tmuxEnv = { ...cleanEnv, TMUX_TMPDIR: dir, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };
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

function ticket(i, tick, now) {
  return {
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
  };
}

function replace(file, value) {
  writeFileSync(`${file}.tmp`, JSON.stringify(value));
  execFileSync('mv', [`${file}.tmp`, file]);
}

/** `tickets` queued tickets for owner w1:p1, atomically replacing queue.json. */
function writeQueue(tickets, tick) {
  const now = Date.now();
  replace(join(state, 'queue.json'), {
    version: 1,
    tickets: Array.from({ length: tickets }, (_, i) => ticket(i, tick, now)),
  });
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
  replace(join(state, 'items.json'), { version: 1, items });
  writeQueue(50, tick);
  replace(join(dir, 'hosts.json'), { hosts: hosts(tick) });
}

/** Starts `command` (a shell line) in a fresh 38x45 tmux session; returns its name and the pane's pid. */
function session(command) {
  serial += 1;
  const name = `bench${process.pid}-${serial}`;
  tmux(name, '-f', '/dev/null', 'new-session', '-d', '-s', 'S', '-x', '38', '-y', '45', command);
  const pid = Number(tmux(name, 'display-message', '-p', '-t', 'S', '#{pane_pid}').trim());
  return { name, pid };
}

const screenOf = (name) => tmux(name, 'capture-pane', '-p', '-t', 'S');

async function until(name, text) {
  for (;;) {
    if (screenOf(name).includes(text)) return;
    await sleep(2);
  }
}

/**
 * The sidebar in a pane, its DOGSLED_TIMING log to `log`. `empty`: a state dir with nothing in it,
 * read by the production readers (no hosts fixture), the floor of what the sidebar itself costs.
 * `utf8`: the pane's locale is UTF-8, as a user's terminal's is (the frame written ahead of blessed
 * is drawn only there: elsewhere blessed draws its borders in the line-drawing set, sidebar/app.ts).
 */
function sidebarCommand(log, { empty = false, utf8 = true } = {}) {
  const env = {
    ...(utf8 ? { LANG: 'C.UTF-8' } : {}),
    HOME: dir,
    DOGSLED_STATE: empty ? emptyState : state,
    DOGSLED_TEST: '1',
    ...(empty ? {} : { DOGSLED_TEST_SIDEBAR_HOSTS: join(dir, 'hosts.json') }),
    DOGSLED_TIMING: log ? '1' : '0',
    TERM: 'xterm-256color',
    PATH: process.env.PATH,
    HERDR_CONFIG_PATH: join(dir, 'none.toml'),
  };
  const assignments = Object.entries(env).map(([k, v]) => quote(`${k}=${v}`));
  const redirect = log ? `2>${quote(log)}` : '2>/dev/null';
  return `exec env -i ${assignments.join(' ')} ${quote(process.execPath)} ${quote(CLI)} sidebar --owner w1:p1 ${redirect}`;
}

/** `timing <ms>ms <stage>` marks of a DOGSLED_TIMING log (ms since the process started). */
function marks(log, stage) {
  return [...readFileSync(log, 'utf8').matchAll(new RegExp(`timing ([\\d.]+)ms ${stage}\\n`, 'g'))].map((m) =>
    Number(m[1]),
  );
}

/** The first `sidebar first frame cpu` span of a log: the process's CPU (user + system) until then. */
function cpuMarks(log) {
  return [...readFileSync(log, 'utf8').matchAll(/timing span sidebar first frame cpu ([\d.]+)ms\n/g)].map(
    (m) => Number(m[1]),
  );
}

/**
 * One sidebar start: its marks, and how long after the frame chokidar was watching. `written`: wait
 * until it has written its code cache. `onScreen`: also the wall time until its first frame is on
 * the screen, read back with capture-pane every 2 ms; those reads are a process each, a core's worth
 * of work beside the start they time, so the marks of such a start are not taken for the first
 * paint (a start without it waits on its log, read every 10 ms).
 */
async function oneStart(log, options, written = false, onScreen = false) {
  const start = performance.now();
  const a = session(sidebarCommand(log, options));
  if (onScreen) await until(a.name, 'Agents & Jobs');
  const screen = performance.now() - start;
  const stage = written ? 'code cache written sidebar' : 'sidebar watching';
  for (let k = 0; k < 500 && marks(log, stage).length === 0; k++) await sleep(10);
  tmux(a.name, 'kill-server');
  const frame = marks(log, 'sidebar first frame')[0];
  const ready = marks(log, 'sidebar watching')[0];
  return {
    screen,
    frame,
    interactive: marks(log, 'sidebar interactive')[0],
    cpu: cpuMarks(log)[0],
    watching: frame !== undefined && ready !== undefined ? ready - frame : undefined,
  };
}

/**
 * First paint with the heavy state, with an empty one and the floor, alternating in each round. The
 * first start of a build has no code cache for the bundle yet (a sidebar writes it once it has drawn):
 * one cold start per state comes first, reported apart, and writes the cache the others use, as a
 * user's every start after the first does.
 */
async function startup() {
  const heavy = { screen: [], frame: [], cpu: [], watching: [], interactive: [] };
  const empty = { frame: [], cpu: [] };
  const plain = { frame: [], cpu: [] };
  const floor = [];
  const cold = {
    heavy: await oneStart(join(dir, 'startup-cold.log'), {}, true),
    empty: await oneStart(join(dir, 'startup-cold-empty.log'), { empty: true }, true),
  };
  for (let i = 0; i < RUNS; i++) {
    heavy.screen.push((await oneStart(join(dir, `startup-screen-${i}.log`), {}, false, true)).screen);
    const h = await oneStart(join(dir, `startup-${i}.log`), {});
    if (h.frame !== undefined) heavy.frame.push(h.frame);
    if (h.cpu !== undefined) heavy.cpu.push(h.cpu);
    if (h.watching !== undefined) heavy.watching.push(h.watching);
    if (h.interactive !== undefined) heavy.interactive.push(h.interactive);
    const e = await oneStart(join(dir, `startup-empty-${i}.log`), { empty: true });
    if (e.frame !== undefined) empty.frame.push(e.frame);
    if (e.cpu !== undefined) empty.cpu.push(e.cpu);
    const p = await oneStart(join(dir, `startup-plain-${i}.log`), { utf8: false });
    if (p.frame !== undefined) plain.frame.push(p.frame);
    if (p.cpu !== undefined) plain.cpu.push(p.cpu);
    const start = performance.now();
    const b = session(
      `exec env -u NODE_EXTRA_CA_CERTS ${quote(process.execPath)} -e "process.stdout.write('READY'); setTimeout(() => {}, 1e6)"`,
    );
    await until(b.name, 'READY');
    floor.push(performance.now() - start);
    tmux(b.name, 'kill-server');
  }
  return {
    screen: median(heavy.screen),
    floor: median(floor),
    firstFrame: median(heavy.frame),
    firstFrameCpu: median(heavy.cpu),
    interactive: median(heavy.interactive),
    emptyFrame: median(empty.frame),
    emptyCpu: median(empty.cpu),
    plainFrame: median(plain.frame),
    plainCpu: median(plain.cpu),
    watching: median(heavy.watching),
    cold,
  };
}

/** The chokidar chunk's load alone, against `node -e 0`, interleaved. */
function chokidarLoad() {
  const chunk = readdirSync(join(ROOT, 'dist', 'chunks')).find((f) => f.startsWith('chokidar-'));
  if (!chunk) return null;
  const path = join(ROOT, 'dist', 'chunks', chunk);
  const time = (args) => {
    const start = performance.now();
    execFileSync(process.execPath, args, { env: cleanEnv });
    return performance.now() - start;
  };
  const withIt = [];
  const without = [];
  for (let i = 0; i < RUNS * 2; i++) {
    without.push(time(['-e', '0']));
    withIt.push(time(['--input-type=module', '-e', `await import(${JSON.stringify(path)})`]));
  }
  return { with: median(withIt), without: median(without) };
}

/** From queue.json replaced to the screen showing its new count, `REPAINTS` times. */
async function repaints() {
  writeWork(0);
  const s = session(sidebarCommand(join(dir, 'repaint.log')));
  await until(s.name, 'Agents & Jobs');
  // Watching starts after the first frame: wait for it, then let the first scan settle.
  for (let k = 0; k < 500 && marks(join(dir, 'repaint.log'), 'sidebar watching').length === 0; k++)
    await sleep(10);
  await sleep(500);
  const times = [];
  for (let i = 1; i <= REPAINTS; i++) {
    const tickets = i % 2 === 0 ? 50 : 51;
    // 120 running and failed jobs in view plus the tickets: the title counts every row not DONE.
    const before = screenOf(s.name).match(/Agents & Jobs (\d+)/)?.[1];
    const start = performance.now();
    writeQueue(tickets, i);
    for (;;) {
      const now = screenOf(s.name).match(/Agents & Jobs (\d+)/)?.[1];
      if (now !== undefined && now !== before) break;
      if (performance.now() - start > 10_000) throw new Error('the screen never changed');
    }
    times.push(performance.now() - start);
    await sleep(300);
  }
  tmux(s.name, 'kill-server');
  return times;
}

function cpuPercent(pid, from, seconds) {
  return (100 * (procStat(pid).cpuTicks - from)) / TICK / seconds;
}

async function resident(changing, seconds) {
  const log = join(dir, `timing-${changing ? 'busy' : 'idle'}.log`);
  const s = session(sidebarCommand(log));
  await until(s.name, 'Agents & Jobs');
  const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    stdio: 'ignore',
    env: cleanEnv,
  });
  await sleep(3000);
  const a = procStat(s.pid).cpuTicks;
  const b = procStat(idle.pid).cpuTicks;
  const t0 = Date.now();
  writeFileSync(log, '');
  for (let tick = 1; tick <= seconds; tick++) {
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

const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? Number.NaN;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

try {
  const loadBefore = load();
  writeWork(0);
  mkdirSync(emptyState, { recursive: true });
  const up = await startup();
  const chokidar = chokidarLoad();
  const repaint = await repaints();
  const busy = await resident(true, SECONDS);
  writeWork(0);
  const quiet = await resident(false, IDLE_SECONDS);
  const f = (n) => n.toFixed(1);
  const g = (n) => n.toFixed(2);
  console.log(`\n### sidebar (load ${loadBefore} at the start, ${load()} at the end)\n`);
  console.log('| measure | sidebar | floor | budget |');
  console.log('| --- | --- | --- | --- |');
  console.log(
    `| first paint from the process's start (\`sidebar first frame\`, median of ${RUNS}), 20 hosts and 200 rows | ${f(up.firstFrame)} ms (CPU ${f(up.firstFrameCpu)} ms) | | 150 ms |`,
  );
  console.log(
    `| blessed's frame, keys acting (\`sidebar interactive\`), 20 hosts and 200 rows | ${f(up.interactive)} ms | | |`,
  );
  console.log(`| first paint, empty state dir | ${f(up.emptyFrame)} ms (CPU ${f(up.emptyCpu)} ms) | | |`);
  console.log(
    `| first paint, 20 hosts and 200 rows, no UTF-8 locale (blessed's own frame, none ahead of it) | ${f(up.plainFrame)} ms (CPU ${f(up.plainCpu)} ms) | | |`,
  );
  console.log(
    `| first paint of a build's first start (no code cache yet), heavy / empty | ${f(up.cold.heavy.frame)} / ${f(up.cold.empty.frame)} ms (CPU ${f(up.cold.heavy.cpu)} / ${f(up.cold.empty.cpu)} ms) | | |`,
  );
  console.log(
    `| first frame on a 38x45 tmux screen | ${f(up.screen)} ms | ${f(up.floor)} ms (\`node -e\` printing a line) | ${(up.screen / up.floor).toFixed(2)}x |`,
  );
  console.log(
    `| chokidar loaded and watching, after the first frame | +${f(up.watching)} ms | | off the first paint |`,
  );
  if (chokidar) {
    console.log(
      `| chokidar's chunk imported alone | ${f(chokidar.with)} ms | ${f(chokidar.without)} ms (\`node -e 0\`) | +${f(chokidar.with - chokidar.without)} ms |`,
    );
  }
  console.log(
    `| repaint after queue.json is replaced, median / p95 of ${repaint.length} | ${f(median(repaint))} / ${f(p95(repaint))} ms | | 100 ms |`,
  );
  console.log(
    `| CPU, nothing changing (${IDLE_SECONDS} s) | ${g(quiet.cpu)}% of a core | ${g(quiet.floor)}% (idle node) | 0.2% |`,
  );
  console.log(
    `| CPU, 20 hosts and 200 rows changing every second | ${f(busy.cpu)}% of a core | ${f(busy.floor)}% (idle node) | |`,
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
