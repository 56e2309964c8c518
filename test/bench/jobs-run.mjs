// `dogsled run --wait -- true` against `node -e 0` (one Node start-up, the budget's unit: at most 3x
// headless) and `sh -c true`: what submitting, placing, launching the exec supervisor and following
// the job costs end to end, headless (handed to the supervisor the running service keeps warm; the
// service starts the next one meanwhile, on the same CPUs) and in the fake Herdr (a new tab whose
// shell is typed the exec line; exec closes it). The service measures a fixture /proc (an
// idle 8-core host) under a roomy policy, so the box's own load never queues a run. Interleaved with
// the floors so drift hits all alike. Prints a markdown table; BENCH_RUNS shortens it. BENCH_BASELINE=PATH
// (another build's dist/dogsled.cjs, e.g. main's) adds its headless run, interleaved, for a paired
// this-build-against-that one; the load average at the start and the end is printed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, idleProc, median, ROOT, RUNS, stop, timeOnce } from './lib.mjs';

const FAKE = join(ROOT, 'test', 'fakes', 'herdr');
const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-jobs-run-'));
const home = join(work, 'home');
const scratch = join(work, 'scratch');
mkdirSync(join(home, '.config', 'dogsled'), { recursive: true });
mkdirSync(scratch);
// A policy under which the host always has room, so every run is placed at once.
writeFileSync(
  join(home, '.config', 'dogsled', 'config.toml'),
  'free_core_fraction_min = 0.0\nmemory_reserve_bytes = 0\ndisk_free_min_percent = 0\nreservation_load = 0.0\nreservation_ttl_ms = 1000\n',
);
const baseEnv = { ...process.env, HOME: home, DOGSLED_STATE: join(work, 'state') };
for (const key of Object.keys(baseEnv)) if (/^(HERDR_|DOGSLED_TEST|XDG_)/.test(key)) delete baseEnv[key];

function call(socketPath, method, params = {}) {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ id: 'bench', method, params })}\n`));
    socket.on('data', (d) => {
      buffer += d;
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const reply = JSON.parse(buffer.split('\n')[0]);
      if (reply.error) reject(new Error(`${method}: ${reply.error.message}`));
      else resolve(reply.result);
    });
  });
}

async function startHerdr() {
  const socketPath = join(work, 'h.sock');
  const env = { ...baseEnv, XDG_CONFIG_HOME: join(work, 'config'), XDG_STATE_HOME: join(work, 'xdg-state') };
  const server = spawn(process.execPath, [join(FAKE, 'server.mjs'), '--socket', socketPath], {
    env,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i++) {
    if (await call(socketPath, 'ping').catch(() => false)) break;
    if (i > 300) throw new Error('fake herdr did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  const created = await call(socketPath, 'workspace.create', { cwd: scratch });
  return {
    server,
    env: {
      ...baseEnv,
      PATH: `${join(FAKE, 'bin')}:${baseEnv.PATH}`,
      HERDR_SOCKET_PATH: socketPath,
      HERDR_ENV: '1',
      HERDR_PANE_ID: created.root_pane.pane_id,
    },
  };
}

/** Waits until the service's snapshot makes the host eligible (a CPU sample needs a second tick). */
async function untilEligible() {
  for (let i = 0; i < 100; i++) {
    const status = spawnSync(process.execPath, [CLI, 'status', '--json'], { env: baseEnv, encoding: 'utf8' });
    if (status.status === 0 && JSON.parse(status.stdout).hosts?.[0]?.headroom?.eligible) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the host never became eligible');
}

let service;
let herdr;
const proc = idleProc(join(work, 'proc'));
try {
  console.error(`measuring: ${RUNS} runs per case`);
  service = spawn(process.execPath, [CLI, 'serve', '--interval', '1'], {
    env: { ...baseEnv, ...proc.env },
    stdio: 'ignore',
  });
  await untilEligible();
  herdr = await startHerdr();

  const run = [process.execPath, CLI, 'run', '--wait', '--cwd', scratch, '--', 'true'];
  const cases = [
    ['node -e 0', [process.execPath, '-e', '0'], baseEnv],
    ['sh -c true', ['sh', '-c', 'true'], baseEnv],
    ['run --wait -- true (headless)', run, baseEnv],
    ['run --wait -- true (fake Herdr)', run, herdr.env],
    ...(process.env.BENCH_BASELINE
      ? [
          [
            'run --wait -- true (headless, baseline)',
            [process.execPath, process.env.BENCH_BASELINE, ...run.slice(2)],
            baseEnv,
          ],
        ]
      : []),
  ];
  const loadBefore = loadavg()[0];
  const times = new Map(cases.map(([name]) => [name, []]));
  for (let i = 0; i < 3; i++) for (const [, argv, env] of cases) timeOnce(argv, env);
  for (let i = 0; i < RUNS; i++) {
    for (const [name, argv, env] of cases) times.get(name).push(timeOnce(argv, env));
  }
  const nodeMs = median(times.get('node -e 0'));
  const shMs = median(times.get('sh -c true'));

  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${RUNS} runs each; load ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end.\n`,
  );
  console.log('| command | median wall | vs `node -e 0` | vs `sh -c true` |');
  console.log('|---|---:|---:|---:|');
  for (const [name] of cases) {
    const ms = median(times.get(name));
    console.log(
      `| \`${name}\` | ${ms.toFixed(1)} ms | ${(ms / nodeMs).toFixed(2)}× | ${(ms / shMs).toFixed(1)}× |`,
    );
  }
} finally {
  proc.stop();
  if (service) await stop(service);
  if (herdr) {
    herdr.server.stdin?.end();
    await stop(herdr.server);
  }
  rmSync(work, { recursive: true, force: true });
}
