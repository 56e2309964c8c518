// Shared measuring helpers for the benchmark scripts: medians, per-process CPU and memory from
// /proc, a timer for whole commands, and service/terminal bundled for the terminal benches. Every script reports against a floor measured in its run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundleModules } from '../../scripts/build.mjs';

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
 * figure moves far less than the wall time, which includes waiting for a core.
 */
export function timeAndCpu(argv, env) {
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, cpuMs: childrenCpuMs() - cpuBefore };
}

export function childrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICK;
}

export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

export function procStat(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const cpuTicks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuTicks, rssKiB: kib('VmRSS'), hwmKiB: kib('VmHWM') };
}

/** CPU (% of one core) and memory of a running child over `seconds`, after `warmupMs`. */
export async function residentCost(child, seconds, warmupMs = 3000) {
  await new Promise((r) => setTimeout(r, warmupMs));
  const a = procStat(child.pid);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const b = procStat(child.pid);
  const wall = (Date.now() - t0) / 1000;
  return {
    cpuPercent: (100 * (b.cpuTicks - a.cpuTicks)) / TICK / wall,
    rssMiB: b.rssKiB / 1024,
    peakMiB: b.hwmKiB / 1024,
  };
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
 * node_modules/.cache/dogsled-bench-<cache>, then loaded: the modules' exports by entry name.
 */
export async function loadBundled(cache, entries) {
  const outdir = join(ROOT, 'node_modules', '.cache', `dogsled-bench-${cache}`);
  mkdirSync(outdir, { recursive: true });
  await bundleModules(entries, outdir);
  const names = Object.keys(entries);
  const loaded = await Promise.all(
    names.map((name) => import(pathToFileURL(join(outdir, `${name}.mjs`)).href)),
  );
  return Object.fromEntries(names.map((name, i) => [name, loaded[i]]));
}
