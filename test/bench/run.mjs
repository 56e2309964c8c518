// `npm run bench`: start-up of the hot commands (and `run --wait -- true` headless, handed to the
// service's warm supervisor) against `node -e 0` (wall and CPU time), and the service's CPU and
// memory, with the job supervisor it keeps warm, against an idle node process, all measured in the
// same run on this machine. Prints a markdown table for the README. BENCH_RUNS and BENCH_SECONDS shorten it. BENCH_BASELINE=PATH (another
// build's dist/dogsled.cjs (or dogsled.mjs before it was CommonJS), e.g. main's) adds its start-up rows, interleaved with this build's, for
// a paired this-build-against-that one; the load average at the start and the end is printed.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLI,
  idleProc,
  mean,
  median,
  RUNS,
  residentCost,
  SECONDS,
  stop,
  timeAndCpu,
  timeOnce,
} from './lib.mjs';

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-'));
const home = join(work, 'home');
mkdirSync(join(home, '.config', 'dogsled'), { recursive: true });
// A policy under which the host always has room, so `place` always writes a reservation.
writeFileSync(
  join(home, '.config', 'dogsled', 'config.toml'),
  'free_core_fraction_min = 0.0\nmemory_reserve_bytes = 0\ndisk_free_min_percent = 0\nreservation_load = 0.0\nreservation_ttl_ms = 1000\n',
);
const baseEnv = { ...process.env, HOME: home, DOGSLED_STATE: join(work, 'state') };
for (const key of Object.keys(baseEnv)) if (/^(HERDR_|DOGSLED_TEST)/.test(key)) delete baseEnv[key];

/**
 * Interleaves the floor with each command so drift hits both alike, in alternating order; ratio of
 * medians (wall) and of means (CPU, counted in 10 ms ticks). The warm-up runs also write the hot
 * bundles' code caches, which every later run uses.
 */
function startup(commands) {
  const runs = [['node -e 0', ['node', '-e', '0']], ...commands];
  const times = new Map(runs.map(([name]) => [name, []]));
  for (let i = 0; i < 3; i++) for (const [, argv] of commands) timeOnce(argv, baseEnv);
  for (let i = 0; i < RUNS; i++) {
    for (const [name, argv] of i % 2 ? [...runs].reverse() : runs) {
      times.get(name).push(timeAndCpu(argv, baseEnv));
    }
  }
  const wall = (xs) => median(xs.map((x) => x.ms));
  const cpu = (xs) => mean(xs.map((x) => x.cpuMs));
  const floor = times.get('node -e 0');
  return [...times].map(([name, xs]) => ({
    name,
    ms: wall(xs),
    ratio: wall(xs) / wall(floor),
    cpuMs: cpu(xs),
    cpuRatio: cpu(xs) / cpu(floor),
  }));
}

async function measured(name, argv, env) {
  const child = spawn(argv[0], argv.slice(1), { env, stdio: 'ignore' });
  const cost = await residentCost(child, SECONDS);
  await stop(child);
  return { name, ...cost };
}

/** A service and the job supervisor it keeps warm (its child, found by its state dir), side by side. */
async function measuredService(name, argv, env) {
  const child = spawn(argv[0], argv.slice(1), { env, stdio: 'ignore' });
  let warm;
  for (let i = 0; i < 100 && warm === undefined; i++) {
    await new Promise((r) => setTimeout(r, 100));
    warm = warmPid(env.DOGSLED_STATE);
  }
  const [cost, warmCost] = await Promise.all([
    residentCost(child, SECONDS),
    warm === undefined ? undefined : residentCost({ pid: warm }, SECONDS),
  ]);
  await stop(child);
  const rows = [{ name, ...cost }];
  if (warmCost) rows.push({ name: `${name}: its warm job supervisor`, ...warmCost });
  return rows;
}

function warmPid(state) {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let vars;
    try {
      vars = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (vars.includes(`DOGSLED_STATE=${state}`) && vars.includes('DOGSLED_EXEC_WARM=1')) return Number(name);
  }
  return undefined;
}

try {
  console.error(`building and measuring: ${RUNS} runs per command, ${SECONDS}s per service figure`);
  // A running service, so status and place see a fresh snapshot with a CPU sample; it measures an
  // idle fixture host, so place always has room however loaded this machine is.
  const proc = idleProc(join(work, 'proc'));
  const service = spawn('node', [CLI, 'serve', '--interval', '1'], {
    env: { ...baseEnv, ...proc.env },
    stdio: 'ignore',
  });
  await new Promise((r) => setTimeout(r, 2500));
  const scratch = join(work, 'scratch');
  mkdirSync(scratch);
  const hot = [
    ['status --line', ['status', '--line']],
    ['status --json', ['status', '--json']],
    ['place --json', ['place', '--json']],
    // Headless, handed to the supervisor the service keeps warm (jobs-run.mjs has the detail).
    ['run --wait -- true', ['run', '--wait', '--cwd', scratch, '--', 'true']],
    // No Herdr: nothing to deliver (test/bench/hooks.mjs measures it in a pane of the fake Herdr).
    ['hook inbox', ['hook', 'inbox', '--harness', 'claude', '--event', 'Stop']],
  ];
  const baseline = process.env.BENCH_BASELINE;
  const loadBefore = loadavg()[0];
  const rows = startup(
    hot.flatMap(([name, args]) => [
      [name, ['node', CLI, ...args]],
      ...(baseline ? [[`${name} (baseline)`, ['node', baseline, ...args]]] : []),
    ]),
  );
  const load = `load ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`;
  service.kill('SIGTERM');
  await new Promise((r) => service.once('exit', r));
  proc.stop();

  const envFor = (name) => ({ ...baseEnv, DOGSLED_STATE: join(work, `state-${name}`) });
  const resident = (
    await Promise.all([
      measured('idle node (floor)', ['node', '-e', 'setInterval(() => {}, 1000)'], baseEnv),
      measuredService('serve --interval 1', ['node', CLI, 'serve', '--interval', '1'], envFor('1')),
      measuredService('serve --interval 10', ['node', CLI, 'serve', '--interval', '10'], envFor('10')),
    ])
  ).flat();
  const floor = resident[0];

  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${load}.\n`);
  console.log('| command | median wall | vs `node -e 0` | mean CPU | vs `node -e 0` |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| \`${r.name}\` | ${r.ms.toFixed(1)} ms | ${r.ratio.toFixed(2)}× | ${r.cpuMs.toFixed(1)} ms | ${r.cpuRatio.toFixed(2)}× |`,
    );
  }
  console.log(`\nService over ${SECONDS} s (CPU as % of one core; RSS at the end; peak RSS):\n`);
  console.log('| process | CPU | RSS | peak RSS | RSS vs idle node |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of resident) {
    console.log(
      `| ${r.name} | ${r.cpuPercent.toFixed(2)}% | ${r.rssMiB.toFixed(1)} MiB | ${r.peakMiB.toFixed(1)} MiB | ${(r.rssMiB / floor.rssMiB).toFixed(2)}× |`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
