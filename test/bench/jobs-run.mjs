// `dogsled run --wait -- true` against `node -e 0` (one Node start-up, the budget's unit) and `sh -c
// true`: what submitting, placing, launching the exec supervisor and following the job costs end to
// end, headless (handed to the supervisor the running service keeps warm, settled before each run;
// the service starts the next one as the job ends, on the same CPUs) and in the fake Herdr (a new tab whose shell is typed the
// exec line; exec closes it). The service measures a fixture /proc (an idle 8-core host) under a
// roomy policy, so the box's own load never queues a run. Paired rounds (lib.mjs: every round runs
// each case once, in alternating order; wall as the median of per-round ratios to the floor, CPU
// as the caller's user + system time). BENCH_RUNS shortens it. BENCH_BASELINE=PATH (another
// build's dist/dogsled.cjs, e.g. main's) adds its rows, interleaved: its caller against its own
// service, in a state dir of its own, so the warm supervisor it hands its job to is its own build's
// too (the job's whole path, not only the caller, is what is compared). The load average at the
// start and the end is printed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, idleProc, pairedStartup, ROOT, RUNS, startupTable, stop, warmSettled } from './lib.mjs';

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
    env: (base) => ({
      ...base,
      PATH: `${join(FAKE, 'bin')}:${base.PATH}`,
      HERDR_SOCKET_PATH: socketPath,
      HERDR_ENV: '1',
      HERDR_PANE_ID: created.root_pane.pane_id,
    }),
  };
}

/** Waits until the service's snapshot makes the host eligible (a CPU sample needs a second tick). */
async function untilEligible(cli, env) {
  for (let i = 0; i < 100; i++) {
    const status = spawnSync(process.execPath, [cli, 'status', '--json'], { env, encoding: 'utf8' });
    if (status.status === 0 && JSON.parse(status.stdout).hosts?.[0]?.headroom?.eligible) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the host never became eligible');
}

/** A private tmux server (its own socket in the bench's directory) and the environment inside it. */
function startTmux() {
  const socket = join(work, 'tmux.sock');
  const env = { ...baseEnv, TMUX_TMPDIR: work };
  const tmux = (...args) =>
    spawnSync('tmux', ['-S', socket, ...args], { env, cwd: scratch, encoding: 'utf8' });
  const made = tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-c',
    scratch,
    '-s',
    'bench',
    '-x',
    '200',
    '-y',
    '50',
  );
  if (made.status !== 0) return undefined;
  const pid = tmux('display-message', '-p', '#{pid}').stdout.trim();
  return {
    env: (base) => ({ ...base, TMUX_TMPDIR: work, TMUX: `${socket},${pid},0` }),
    kill: () => tmux('kill-server'),
  };
}

const services = [];
let herdr;
let tmux;
const proc = idleProc(join(work, 'proc'));
const baseline = process.env.BENCH_BASELINE;
try {
  console.error(`measuring: ${RUNS} runs per case`);
  // This build's service, and the baseline's in a state dir of its own.
  const builds = [
    ['', CLI, baseEnv],
    ...(baseline
      ? [[', baseline', baseline, { ...baseEnv, DOGSLED_STATE: join(work, 'state-baseline') }]]
      : []),
  ];
  for (const [, cli, env] of builds) {
    services.push(
      spawn(process.execPath, [cli, 'serve', '--interval', '1'], {
        env: { ...env, ...proc.env },
        stdio: 'ignore',
      }),
    );
    await untilEligible(cli, env);
  }
  herdr = await startHerdr();
  tmux = startTmux();

  const args = ['run', '--wait', '--cwd', scratch, '--', 'true'];
  const cases = [
    ['sh -c true', ['sh', '-c', 'true'], baseEnv],
    ...builds.flatMap(([suffix, cli, env]) => [
      [`run --wait -- true (headless${suffix})`, [process.execPath, cli, ...args], env],
      [`run --wait -- true (fake Herdr${suffix})`, [process.execPath, cli, ...args], herdr.env(env)],
      ...(tmux
        ? [[`run --wait -- true (tmux${suffix})`, [process.execPath, cli, ...args], tmux.env(env)]]
        : []),
    ]),
  ];
  const loadBefore = loadavg();
  // Every run starts with each service's warm supervisor up and idle (lib.mjs, warmSettled).
  let unsettled = 0;
  const settle = () => {
    for (const [, , env] of builds) if (!warmSettled(env.DOGSLED_STATE)) unsettled++;
  };
  const rows = pairedStartup(cases, { floorEnv: baseEnv, settle });
  const load = (l) => l.map((x) => x.toFixed(1)).join(' ');
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${RUNS} paired rounds; load ${load(loadBefore)} at the start, ${load(loadavg())} at the end.\n`,
  );
  console.log(
    `Each run started with the services' warm job supervisors idle (${unsettled} waits found one still busy after 3 s).\n`,
  );
  console.log(startupTable(rows));
} finally {
  proc.stop();
  tmux?.kill();
  for (const service of services) await stop(service);
  if (herdr) {
    herdr.server.stdin?.end();
    await stop(herdr.server);
  }
  rmSync(work, { recursive: true, force: true });
}
