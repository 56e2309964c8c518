// `npm run bench`: start-up of every command with a start-up budget against `node -e 0`, paired
// (lib.mjs: wall and CPU time, the floor measured in every round), and the service's CPU and
// memory, with the job supervisor it keeps warm, against an idle node process, all measured in the
// same run on this machine, with NODE_EXTRA_CA_CERTS unset for every process (lib.mjs says why).
// The service measures an idle fixture host under a roomy policy, so `place` and `run` always find
// room however loaded this machine is; the hooks run in a pane of the fake Herdr whose reader is
// registered, with nothing pending; items.json holds a finished job before the first round. `exec`
// runs a job record written as a headless launch writes it (`true` in a scratch directory, no item,
// no reservation), a fresh one each round: as the pane's wrapper (`exec ID`, which starts the
// job's supervisor, a second Node, and waits for it) and as that supervisor alone (what a headless
// launch starts when no warm one answers). Prints markdown tables for the README. BENCH_RUNS and
// BENCH_SECONDS shorten it, BENCH_ONLY=WORD keeps the commands whose name holds WORD, BENCH_TRACE=1 prints each one's start-up stages once, BENCH_HOLD=FILE keeps the state up for profiling by hand. BENCH_BASELINE=PATH (another build's dist/dogsled.cjs, e.g. main's) adds
// its rows, interleaved with this build's, for a paired this-build-against-that one.
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLI,
  call,
  idleProc,
  pairedStartup,
  ROOT,
  RUNS,
  residentCost,
  SECONDS,
  startupTable,
  stop,
  timeAndCpu,
  warmPid,
  warmSettled,
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
for (const key of Object.keys(baseEnv)) if (/^(HERDR_|DOGSLED_TEST|XDG_|TMUX)/.test(key)) delete baseEnv[key];

/** Waits until the service's snapshot makes the host eligible (a CPU sample needs a second tick). */
async function untilEligible() {
  for (let i = 0; i < 100; i++) {
    const status = spawnSync(process.execPath, [CLI, 'status', '--json'], { env: baseEnv, encoding: 'utf8' });
    if (status.status === 0 && JSON.parse(status.stdout).hosts?.[0]?.headroom?.eligible) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the host never became eligible');
}

/** The fake Herdr with two panes, each with a registered reader: the hooks run in `child`. */
async function startHerdr() {
  const socketPath = join(work, 'h.sock');
  const server = spawn(
    process.execPath,
    [join(ROOT, 'test', 'fakes', 'herdr', 'server.mjs'), '--socket', socketPath],
    {
      env: { ...baseEnv, XDG_CONFIG_HOME: join(work, 'config'), XDG_STATE_HOME: join(work, 'xdg') },
      stdio: ['pipe', 'ignore', 'inherit'],
    },
  );
  for (let i = 0; !(await call(socketPath, 'ping').catch(() => false)); i++) {
    if (i > 300) throw new Error('fake herdr did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  const pane = async () => (await call(socketPath, 'workspace.create', { cwd: home })).result.root_pane;
  const herdr = { ...baseEnv, HERDR_SOCKET_PATH: socketPath, HERDR_ENV: '1' };
  const [lead, child] = [await pane(), await pane()];
  const envOf = (p) => ({ ...herdr, HERDR_PANE_ID: p.pane_id });
  for (const p of [lead, child]) {
    spawnSync(process.execPath, [CLI, 'hook', 'inbox', '--harness', 'claude', '--event', 'Stop'], {
      env: envOf(p),
      input: STOP,
    });
  }
  return { server, lead, leadEnv: envOf(lead), childEnv: envOf(child) };
}

// `ps --json` reads every job record to print the running ones (a record in doubt is the full
// command's to word), so its cost follows the count in jobs/. The shared state gains three to six
// records a round (the `run` and `exec` rows, and the baseline's), which made its row depend on the
// round and on BENCH_RUNS: it reads a state of its own instead, as a busy host keeps it (ended jobs
// stay a day): PS_ENDED ended records and one running job, whose wrapper is this process.
const PS_ENDED = 100;

function psState() {
  const dir = join(work, 'state-ps', 'jobs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = Date.now();
  const record = (id, created, fields) => ({
    version: 1,
    id,
    command: ['npm', 'test'],
    cwd: work,
    host: 'local',
    owner: null,
    pane: null,
    created_ms: created,
    started_ms: created + 5,
    ended_ms: null,
    exit_code: null,
    signal: null,
    reason: null,
    terminal_id: null,
    workspace: null,
    tab: null,
    wrapper_pid: process.pid,
    wrapper_start: Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[19]),
    pgid: process.pid,
    pgid_start: null,
    timeout_ms: null,
    idle_timeout_ms: null,
    ticket: null,
    item: null,
    reservation: null,
    ...fields,
  });
  const write = (r) =>
    writeFileSync(join(dir, `${r.id}.json`), `${JSON.stringify(r, null, 2)}\n`, { mode: 0o600 });
  for (let i = 0; i < PS_ENDED; i++) {
    const created = now - 86_000_000 + i * 800_000;
    write(
      record(`j_ended${i}`, created, {
        ended_ms: created + 60_000,
        exit_code: 0,
        peak_rss_bytes: 1e8,
        cpu_ms: 900,
      }),
    );
  }
  write(record('j_running', now - 60_000, {}));
  return { ...baseEnv, DOGSLED_STATE: join(work, 'state-ps') };
}

const STOP = '{"hook_event_name":"Stop","stop_hook_active":false}';
const PROMPT = '{"hook_event_name":"UserPromptSubmit","prompt":"go on"}';
const NOTIFICATION = '{"hook_event_name":"Notification","notification_type":"idle_prompt"}';

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

try {
  console.error(`measuring: ${RUNS} runs per command, ${SECONDS}s per service figure`);
  const proc = idleProc(join(work, 'proc'));
  const service = spawn(process.execPath, [CLI, 'serve', '--interval', '1'], {
    env: { ...baseEnv, ...proc.env },
    stdio: 'ignore',
  });
  await untilEligible();
  const herdr = await startHerdr();
  const scratch = join(work, 'scratch');
  mkdirSync(scratch);
  // One finished job on file, so `status --brief` counts items.json, as a host that ran work does.
  spawnSync(process.execPath, [CLI, 'run', '--wait', '--cwd', scratch, '--', 'true'], { env: baseEnv });
  const { childEnv } = herdr;
  // `send`: the lead's inbox as its reader left it (registered, nothing pending), put back before
  // each run. Each send adds a record the lead never reads here, and reading and rewriting them is
  // some 0.12 M instructions a record: without this, the row measured an inbox that grew by one or
  // two records a round (60 by the end of 31 rounds with BENCH_BASELINE), not a send.
  const inboxDir = join(baseEnv.DOGSLED_STATE, 'inbox');
  const inboxAtStart = new Map(
    readdirSync(inboxDir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => [name, readFileSync(join(inboxDir, name))]),
  );
  // Synced, file and directory, so the send's own fsync does not carry this write into the journal.
  const freshInbox = () => {
    for (const [name, bytes] of inboxAtStart) {
      const temp = join(inboxDir, `${name}.bench`);
      const fd = openSync(temp, 'w', 0o600);
      writeSync(fd, bytes);
      fsyncSync(fd);
      closeSync(fd);
      renameSync(temp, join(inboxDir, name));
    }
    const dir = openSync(inboxDir, 'r');
    fsyncSync(dir);
    closeSync(dir);
  };
  // `exec ID`: a created record each round (job-launch.ts's fields), so every run starts the job.
  let jobs = 0;
  const createdJob = () => {
    const id = `j_bench${process.pid}x${jobs++}`;
    const dir = join(baseEnv.DOGSLED_STATE, 'jobs');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const record = {
      version: 1,
      id,
      command: ['true'],
      cwd: scratch,
      host: 'local',
      owner: null,
      pane: null,
      created_ms: Date.now(),
      started_ms: null,
      ended_ms: null,
      exit_code: null,
      signal: null,
      reason: null,
      terminal_id: null,
      workspace: null,
      tab: null,
      timeout_ms: null,
      idle_timeout_ms: null,
      ticket: null,
      item: null,
      reservation: null,
    };
    // Synced, file and directory, as `run` leaves the record it launches: unsynced, the claim's own
    // fsync carried this creation into the journal, some 3 to 5 ms of the row that no launch pays.
    const fd = openSync(join(dir, `${id}.json`), 'w', 0o600);
    writeSync(fd, `${JSON.stringify(record, null, 2)}\n`);
    fsyncSync(fd);
    closeSync(fd);
    const dirFd = openSync(dir, 'r');
    fsyncSync(dirFd);
    closeSync(dirFd);
    return id;
  };
  const supervisorEnv = { ...baseEnv, DOGSLED_EXEC_SUPERVISOR: '1' };
  const psEnv = psState();
  // [name, args, env, stdin]
  const commands = [
    ['status --line', ['status', '--line'], baseEnv],
    ['status --brief', ['status', '--brief'], baseEnv],
    ['status --json', ['status', '--json'], baseEnv],
    ['place --json', ['place', '--json'], baseEnv],
    ['hook inbox (Stop)', ['hook', 'inbox', '--harness', 'claude', '--event', 'Stop'], childEnv, STOP],
    [
      'hook inbox (UserPromptSubmit)',
      ['hook', 'inbox', '--harness', 'claude', '--event', 'UserPromptSubmit'],
      childEnv,
      PROMPT,
    ],
    [
      'hook context',
      ['hook', 'context', '--harness', 'claude', '--event', 'UserPromptSubmit'],
      childEnv,
      PROMPT,
    ],
    [
      'hook state',
      ['hook', 'state', '--harness', 'claude', '--event', 'Notification'],
      childEnv,
      NOTIFICATION,
    ],
    ['hook gate', ['hook', 'gate'], childEnv, STOP],
    // Headless, handed to the supervisor the service keeps warm (jobs-run.mjs has the detail).
    ['run --wait -- true', ['run', '--wait', '--cwd', scratch, '--', 'true'], baseEnv],
    // [name, (id) => args, env]: a fresh job record per run (createdJob).
    ['exec ID (wrapper and its supervisor)', (id) => ['exec', id], baseEnv],
    ['exec ID (the supervisor alone)', (id) => ['exec', id], supervisorEnv],
    // [name, args, env, stdin, before]: `before` runs ahead of each run, untimed.
    ['send', ['send', herdr.lead.pane_id, '--message', 'bench'], childEnv, undefined, freshInbox],
    ['board --json', ['board', '--json'], childEnv],
    ['items --json', ['items', '--json'], baseEnv],
    ['ps --json', ['ps', '--json'], psEnv],
    ['--version', ['--version'], baseEnv],
    ['--help', ['--help'], baseEnv],
  ];
  // BENCH_TRACE=1: each command once more with DOGSLED_TIMING=1, its start-up stages on stderr
  // (which bundle answered, and where the time went), before the rounds.
  if (process.env.BENCH_TRACE) {
    for (const [name, argsOf, env, input] of commands) {
      const args = typeof argsOf === 'function' ? argsOf(createdJob()) : argsOf;
      const run = spawnSync(process.execPath, [CLI, ...args], {
        env: { ...env, DOGSLED_TIMING: '1' },
        input: input ?? '',
        encoding: 'utf8',
      });
      console.error(`--- ${name} (exit ${run.status})\n${run.stderr.trim()}`);
    }
  }
  // BENCH_HOLD=FILE: write the commands' environments there as shell lines and keep everything up
  // until SIGINT, for profiling a command by hand in the bench's own state.
  if (process.env.BENCH_HOLD) {
    const q = (v) => `'${String(v).replaceAll("'", "'\\''")}'`;
    const lines = (prefix, env) =>
      Object.entries(env)
        .filter(([k]) => /^(HOME|DOGSLED_|HERDR_|PATH$)/.test(k))
        .map(([k, v]) => `${prefix}${k}=${q(v)}`);
    writeFileSync(
      process.env.BENCH_HOLD,
      [...lines('export ', baseEnv), ...lines('CHILD_', childEnv), `SCRATCH=${q(scratch)}`, ''].join('\n'),
    );
    console.error(`holding; environments in ${process.env.BENCH_HOLD} (CHILD_* for the hooks); ^C ends`);
    await new Promise((r) => process.once('SIGINT', r));
  }
  const baseline = process.env.BENCH_BASELINE;
  // BENCH_ONLY=WORD: only the commands whose name holds it, and no service figures.
  const only = process.env.BENCH_ONLY;
  const loadBefore = loadavg();
  let unsettled = 0;
  const rows = pairedStartup(
    commands
      .filter(([name]) => only === undefined || name.includes(only))
      .flatMap(([name, args, env, input, before]) => {
        const one = (cli) => {
          if (typeof args === 'function')
            return () => timeAndCpu([process.execPath, cli, ...args(createdJob())], env);
          if (before === undefined) return [process.execPath, cli, ...args];
          return () => {
            before();
            return timeAndCpu([process.execPath, cli, ...args], env, input);
          };
        };
        return [
          [name, one(CLI), env, input],
          ...(baseline ? [[`${name} (baseline)`, one(baseline), env, input]] : []),
        ];
      }),
    // Every run, the floor's too, starts with the service's warm supervisor up and idle: the rows
    // handed to it (`run --wait`, `exec ID` as a pane's wrapper) time the warm path their budgets
    // name, and no run is timed beside the next warm supervisor's Node start on the other core.
    { floorEnv: baseEnv, settle: () => warmSettled(baseEnv.DOGSLED_STATE) || unsettled++ },
  );
  const load = `load ${loadBefore.map((x) => x.toFixed(1)).join(' ')} at the start, ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} at the end`;
  await stop(service);
  herdr.server.stdin?.end();
  await stop(herdr.server);
  proc.stop();

  const envFor = (name) => ({ ...baseEnv, DOGSLED_STATE: join(work, `state-${name}`) });
  const resident = (
    await Promise.all(
      only !== undefined
        ? []
        : [
            measured('idle node (floor)', ['node', '-e', 'setInterval(() => {}, 1000)'], baseEnv),
            measuredService('serve --interval 1', ['node', CLI, 'serve', '--interval', '1'], envFor('1')),
            measuredService('serve --interval 10', ['node', CLI, 'serve', '--interval', '10'], envFor('10')),
          ],
    )
  ).flat();
  const floor = resident[0];

  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${load}.\n`);
  console.log(`NODE_EXTRA_CA_CERTS unset for both sides; ${RUNS} paired rounds.\n`);
  console.log(
    `Each run started with the service's warm job supervisor idle (${unsettled} runs found it still busy after 3 s).\n`,
  );
  console.log(startupTable(rows));
  if (floor === undefined) console.log('\nBENCH_ONLY: no service figures.');
  else {
    console.log(`\nService over ${SECONDS} s (CPU as % of one core; RSS at the end; peak RSS):\n`);
    console.log('| process | CPU | RSS | peak RSS | RSS vs idle node |');
    console.log('|---|---:|---:|---:|---:|');
    for (const r of resident) {
      console.log(
        `| ${r.name} | ${r.cpuPercent.toFixed(2)}% | ${r.rssMiB.toFixed(1)} MiB | ${r.peakMiB.toFixed(1)} MiB | ${(r.rssMiB / floor.rssMiB).toFixed(2)}× |`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
