// Shared measuring helpers for the benchmark scripts: medians, per-process CPU and memory from
// /proc, a timer for whole commands, paired start-up runs against `node -e 0`, and service/terminal
// bundled for the terminal benches. Every script reports against a floor measured in its run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundleModules } from '../../scripts/build.mjs';

// NODE_EXTRA_CA_CERTS makes every Node start read and parse a CA bundle (some 80 ms on a machine
// whose bare start is 20 ms): a user's machine seldom sets it, and with it set on both sides a
// command 20 ms slower than the floor looks 1.2× instead of 2×. Every process a benchmark starts
// inherits this environment or a copy of it, so it goes here, for the floor and the command alike.
delete process.env.NODE_EXTRA_CA_CERTS;

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'dist', 'dogsled.cjs');
export const RUNS = Number(process.env.BENCH_RUNS ?? 30);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
// /proc/<pid>/stat counts CPU time in clock ticks of USER_HZ, which is 100 on Linux.
const TICK = 100;

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

export function timeOnce(argv, env) {
  return timeAndCpu(argv, env).ms;
}

/**
 * Wall time and the child's CPU time (user + system, ms): the CPU of children this process has
 * waited for, before and after (/proc/self/stat cutime and cstime). On a loaded machine the CPU
 * figure moves far less than the wall time, which includes waiting for a core. `faults` is the
 * child's minor page faults (cminflt), which load does not move: on a virtual machine where a
 * fault costs microseconds they are a share of start-up of their own.
 */
export function timeAndCpu(argv, env, input) {
  const cpuBefore = childrenCpuMs();
  const faultsBefore = childrenFaults();
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), {
    env,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, cpuMs: childrenCpuMs() - cpuBefore, faults: childrenFaults() - faultsBefore };
}

/**
 * Start-up of each case against `node -e 0`, paired: every round runs the floor and each case once,
 * in alternating order (so drift and a neighbour's load hit both alike), after `warmups` rounds that
 * also write the hot bundles' code caches. A case is `[name, argv, env, input?]` or
 * `[name, () => ({ ms, cpuMs })]` for one that prepares its own state. Wall: the median of the
 * per-round ratios (case / the floor of the same round) and the median time. CPU (user + system of
 * the child, counted by the kernel in 10 ms ticks): the ratio of means, which the ticks do not bias.
 * `settle`, when given, runs (untimed) before every run, the floor's included.
 */
export function pairedStartup(cases, { runs = RUNS, warmups = 3, floorEnv = process.env, settle } = {}) {
  const floor = ['node -e 0', [process.execPath, '-e', '0'], floorEnv];
  const all = [floor, ...cases];
  const once = ([, argv, env, input]) => {
    settle?.();
    return typeof argv === 'function' ? argv() : timeAndCpu(argv, env, input);
  };
  const times = new Map(all.map(([name]) => [name, []]));
  for (let i = 0; i < warmups; i++) for (const c of cases) once(c);
  for (let i = 0; i < runs; i++) {
    for (const c of i % 2 ? [...all].reverse() : all) times.get(c[0]).push(once(c));
  }
  const floorRuns = times.get('node -e 0');
  const floorCpu = mean(floorRuns.map((x) => x.cpuMs));
  return [...times].map(([name, xs]) => {
    const ratios = xs.map((x, i) => x.ms / floorRuns[i].ms);
    const cpuMs = mean(xs.map((x) => x.cpuMs));
    // A case that prepares its own state may time it another way and carry no fault count.
    const faults = xs.every((x) => x.faults !== undefined) ? median(xs.map((x) => x.faults)) : undefined;
    return {
      name,
      ms: median(xs.map((x) => x.ms)),
      ratio: median(ratios),
      ratioLow: quantile(ratios, 0.25),
      ratioHigh: quantile(ratios, 0.75),
      cpuMs,
      cpuRatio: cpuMs / floorCpu,
      faults,
      faultsRatio: faults === undefined ? undefined : faults / median(floorRuns.map((x) => x.faults)),
    };
  });
}

export const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

/** The paired table in markdown: the floor's own row first, with its milliseconds. */
export function startupTable(rows) {
  const lines = [
    '| command | median wall | wall vs `node -e 0` (paired median, IQR) | mean CPU | CPU vs `node -e 0` | minor faults (median, vs `node -e 0`) |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const range = r.name === 'node -e 0' ? '' : ` (${r.ratioLow.toFixed(2)}–${r.ratioHigh.toFixed(2)})`;
    const faults = r.faults === undefined ? '' : `${Math.round(r.faults)} (${r.faultsRatio.toFixed(2)}×)`;
    lines.push(
      `| \`${r.name}\` | ${r.ms.toFixed(1)} ms | ${r.ratio.toFixed(2)}×${range} | ${r.cpuMs.toFixed(1)} ms | ${r.cpuRatio.toFixed(2)}× | ${faults} |`,
    );
  }
  return lines.join('\n');
}

export function childrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICK;
}

/** Minor page faults of the children this process has waited for (/proc/self/stat cminflt). */
export function childrenFaults() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return Number(fields[8]);
}

export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

export function procStat(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const cpuTicks = Number(fields[11]) + Number(fields[12]);
  // cutime + cstime: the CPU of the children it has waited for (a service's git processes).
  const childTicks = Number(fields[13]) + Number(fields[14]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuTicks, childTicks, rssKiB: kib('VmRSS'), hwmKiB: kib('VmHWM') };
}

/**
 * CPU (% of one core, and ms of user + system time per minute) and memory of a running child over
 * `seconds`, after `warmupMs`; `childCpuPercent` is what its waited-for children used meanwhile.
 */
export async function residentCost(child, seconds, warmupMs = 3000) {
  await new Promise((r) => setTimeout(r, warmupMs));
  const a = procStat(child.pid);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const b = procStat(child.pid);
  const wall = (Date.now() - t0) / 1000;
  const cpuMs = ((b.cpuTicks - a.cpuTicks) * 1000) / TICK;
  return {
    cpuPercent: cpuMs / 10 / wall,
    cpuMsPerMinute: (cpuMs / wall) * 60,
    childCpuPercent: (100 * (b.childTicks - a.childTicks)) / TICK / wall,
    rssMiB: b.rssKiB / 1024,
    peakMiB: b.hwmKiB / 1024,
  };
}

/** The job supervisor a service keeps warm: the process with its state dir and the warm marker. */
export function warmPid(state) {
  return warmPids(state)[0];
}

/** Every process started as a warm supervisor of `state`: the one waiting, and any taken one still running. */
function warmPids(state) {
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let vars;
    try {
      vars = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (vars.includes(`DOGSLED_STATE=${state}`) && vars.includes('DOGSLED_EXEC_WARM=1'))
      pids.push(Number(name));
  }
  return pids;
}

const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function onCpuNs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

/**
 * Waits (synchronously, untimed, at most `maxMs`) until the service of `state` has one warm job
 * supervisor and it is idle: the one a job took has exited, and the next one's time on a CPU
 * (/proc/PID/schedstat) has not moved for `quietMs`. Without it, a command timed right after a job
 * (or a job of the round before) meets the next warm supervisor's Node start on the other core, or
 * waits for it in the socket's backlog: what is then timed is a back-to-back launch, not the warm
 * path the budget names. Returns whether it settled.
 */
export function warmSettled(state, { quietMs = 30, maxMs = 3000 } = {}) {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    const pids = warmPids(state);
    if (pids.length === 1) {
      const before = onCpuNs(pids[0]);
      sleepSync(quietMs);
      if (before !== undefined && onCpuNs(pids[0]) === before) return true;
    } else sleepSync(5);
  }
  return false;
}

export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

/** One request to a (fake) Herdr socket, one connection; resolves the response envelope. */
export function call(socketPath, method, params = {}) {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = '';
    socket.on('connect', () => socket.write(`${JSON.stringify({ id: 'bench', method, params })}\n`));
    socket.on('data', (d) => {
      buffer += d;
    });
    socket.on('end', () => resolve(JSON.parse(buffer.split('\n')[0])));
    socket.on('error', reject);
  });
}

/**
 * A fixture /proc for `serve` (DOGSLED_TEST_PROBE_ROOT with DOGSLED_TEST=1): an idle 8-core host
 * whose CPU counters advance every 100 ms, so what the service measures, and so every placement,
 * does not depend on how loaded the benchmark machine is. The counters advance in a child process:
 * the benchmarks block their own event loop in spawnSync. Returns the variables for serve and a stop.
 */
export function idleProc(root) {
  const script = `
    const { mkdirSync, renameSync, writeFileSync } = require('node:fs');
    const dir = ${JSON.stringify(join(root, 'proc'))};
    const cores = 8;
    let total = 1000000;
    const line = (name, share) => name + ' 0 0 0 ' + Math.round(total * share) + ' 0 0 0 0 0 0';
    mkdirSync(dir, { recursive: true });
    const kib = 32 * 1024 * 1024;
    writeFileSync(dir + '/loadavg', '0.00 0.00 0.00 1/200 12345\\n');
    writeFileSync(dir + '/meminfo', 'MemTotal: ' + kib + ' kB\\nMemFree: ' + kib + ' kB\\nMemAvailable: ' + kib + ' kB\\n');
    const tick = () => {
      total += 800;
      const cpus = Array.from({ length: cores }, (_, i) => line('cpu' + i, 1 / cores));
      writeFileSync(dir + '/stat.tmp', [line('cpu ', 1), ...cpus, 'intr 0', 'ctxt 0', 'btime 1700000000', ''].join('\\n'));
      renameSync(dir + '/stat.tmp', dir + '/stat');
    };
    tick();
    setInterval(tick, 100);
    process.stdin.on('end', () => process.exit(0)).resume();
  `;
  const ticker = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'ignore', 'inherit'] });
  for (let i = 0; i < 200 && !existsSync(join(root, 'proc', 'stat')); i++) sleepMs(10);
  return {
    env: { DOGSLED_TEST: '1', DOGSLED_TEST_PROBE_ROOT: root },
    stop: () => {
      ticker.stdin.end();
      ticker.kill();
    },
  };
}

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Milliseconds one awaited call took. */
export async function timed(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** One raw request, used only to wait for the fake to come up. */
export function ping(socketPath) {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.on('connect', () => socket.write('{"id":"bench","method":"ping","params":{}}\n'));
    socket.on('data', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** service/terminal bundled with esbuild into `outdir`, so the terminal benches need no prior build. */
export async function bundleTerminal(outdir) {
  const outfile = join(outdir, 'terminal.mjs');
  await build({
    stdin: {
      contents: "export { openTerminal } from './service/terminal/open.ts';",
      resolveDir: ROOT,
      loader: 'ts',
    },
    absWorkingDir: ROOT,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return (await import(pathToFileURL(outfile).href)).openTerminal;
}

/**
 * TypeScript modules bundled as the CLI is (so ssh2 and msgpackr run from a bundle too) into
 * .bench/<cache>, then loaded: the modules' exports by entry name. Two levels under the checkout,
 * as test/helpers is, so a bundled helper that finds the checkout from its own place (ROOT in
 * test/helpers/cli.ts: the peers' copy of test/fakes) finds it from there too.
 */
export async function loadBundled(cache, entries) {
  const outdir = join(ROOT, '.bench', cache);
  mkdirSync(outdir, { recursive: true });
  await bundleModules(entries, outdir);
  const names = Object.keys(entries);
  const loaded = await Promise.all(
    names.map((name) => import(pathToFileURL(join(outdir, `${name}.mjs`)).href)),
  );
  return Object.fromEntries(names.map((name, i) => [name, loaded[i]]));
}
