// The harness hooks' start-up: `hook inbox` (Stop) and `hook context` (UserPromptSubmit) with nothing
// pending and with 10 records (10 pending inbox records; 10 open items of the owner), against
// `node -e 0` and `status --line`, interleaved so drift hits all alike, against the fake Herdr. The
// budget: within 1.5x of `node -e 0` with nothing pending. `hook inbox` with one pending record is
// measured alone, beside 10,000 delivered records as the inbox keeps them (its settled file), and
// beside the same history in the live file as dogsled kept it before the settled file (what a
// hook paid then). Wall and CPU time (user + system) of each. Needs the built CLI (`npm run bench`
// builds it). BENCH_RUNS shortens it; BENCH_BASELINE=PATH (another build's dist/dogsled.cjs) adds
// its `hook inbox` rows beside this build's.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, call, childrenCpuMs, median, ROOT, RUNS } from './lib.mjs';

const FAKE = join(ROOT, 'test', 'fakes', 'herdr');

function timed(argv, env, input) {
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { env, input, stdio: ['pipe', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, cpuMs: childrenCpuMs() - cpuBefore, stdout: String(r.stdout) };
}

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-hooks-'));
let server;
try {
  const home = join(work, 'home');
  const state = join(work, 'state');
  mkdirSync(home, { recursive: true });
  const socketPath = join(work, 'h.sock');
  // The caller's environment, as run.mjs measures `status --line` (the floor pays what every node pays).
  const base = { ...process.env, HOME: home, DOGSLED_STATE: state };
  for (const key of Object.keys(base)) if (/^(HERDR_|DOGSLED_TEST|XDG_)/.test(key)) delete base[key];
  server = spawn(process.execPath, [join(FAKE, 'server.mjs'), '--socket', socketPath], {
    env: { ...base, XDG_CONFIG_HOME: join(work, 'config'), XDG_STATE_HOME: join(work, 'xdg') },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i++) {
    const up = await call(socketPath, 'ping').catch(() => undefined);
    if (up) break;
    if (i > 300) throw new Error('fake herdr did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  const pane = async () => (await call(socketPath, 'workspace.create', { cwd: home })).result.root_pane;
  const lead = await pane();
  const child = await pane();
  const herdrEnv = { ...base, HERDR_SOCKET_PATH: socketPath, HERDR_ENV: '1' };
  const asChild = { ...herdrEnv, HERDR_PANE_ID: child.pane_id };
  // A published snapshot (hook context adds nothing without one) and the child's reader.
  timed([process.execPath, CLI, 'serve', '--once'], herdrEnv);
  const stopInput = '{"hook_event_name":"Stop","stop_hook_active":false}';
  const promptInput = '{"hook_event_name":"UserPromptSubmit","prompt":"go on"}';
  const inboxArgs = [process.execPath, CLI, 'hook', 'inbox', '--harness', 'claude', '--event', 'Stop'];
  const contextArgs = [process.execPath, CLI, 'hook', 'context', '--harness', 'claude'];
  timed(inboxArgs, asChild, stopInput);

  const inboxFile = join(state, 'inbox', `${child.terminal_id}.json`);
  const registered = JSON.parse(readFileSync(inboxFile, 'utf8'));
  const now = Date.now();
  const records = Array.from({ length: 10 }, (_, i) => ({
    id: `m_bench${String(i).padStart(6, '0')}`,
    kind: 'message',
    sender: { pane: lead.pane_id, terminal: lead.terminal_id, host: 'local', name: null },
    text: `Message ${i}: please also cover the empty case and rerun the suite.`,
    created_ms: now + i,
    state: 'pending',
    attempts: 0,
    lease_until_ms: null,
    delivered_ms: null,
    failed_ms: null,
    reason: null,
    ref: null,
  }));
  const items = Array.from({ length: 10 }, (_, i) => ({
    id: `i_bench${String(i).padStart(6, '0')}`,
    kind: 'job',
    host: 'local',
    pane: null,
    terminal_id: null,
    owner: child.pane_id,
    created_ms: now,
    closed_ms: null,
    close_reason: null,
    job: `j_bench${String(i).padStart(6, '0')}`,
    ticket: null,
    command: ['make', `test-${i}`],
  }));
  const writeItems = (list) =>
    writeFileSync(join(state, 'items.json'), JSON.stringify({ version: 1, items: list }));
  const history = Array.from({ length: 10_000 }, (_, i) => ({
    ...records[i % 10],
    id: `m_hist${String(i).padStart(6, '0')}`,
    created_ms: now - 3_600_000 + i,
    state: 'delivered',
    attempts: 1,
    delivered_ms: now - 3_600_000 + i,
  }));
  const settledDir = join(state, 'inbox', `${child.terminal_id}.d`);
  const settledFile = join(settledDir, 'settled.json');
  const settled = JSON.stringify({ version: 1, terminal: child.terminal_id, records: history }, null, 2);
  /** One pending record, and the history where `where` says: none, the settled file, the live file. */
  const onePending = (where, cli = CLI) => {
    rmSync(settledDir, { recursive: true, force: true });
    if (where === 'settled') {
      mkdirSync(settledDir, { recursive: true, mode: 0o700 });
      writeFileSync(settledFile, settled);
    }
    const live = where === 'live' ? [...history, records[0]] : [records[0]];
    writeFileSync(inboxFile, JSON.stringify({ ...registered, records: live }, null, 2));
    const run = timed([process.execPath, cli, ...inboxArgs.slice(2)], asChild, stopInput);
    if (!run.stdout.includes('1 new record')) throw new Error(`hook inbox printed ${run.stdout}`);
    return run;
  };
  const nothingPending = (cli = CLI) => {
    rmSync(settledDir, { recursive: true, force: true });
    writeFileSync(inboxFile, JSON.stringify({ ...registered, records: [] }, null, 2));
    return timed([process.execPath, cli, ...inboxArgs.slice(2)], asChild, stopInput);
  };
  const baseline = process.env.BENCH_BASELINE;
  const baselineCases = baseline
    ? [
        ['hook inbox, nothing pending (baseline)', () => nothingPending(baseline)],
        ['hook inbox, 1 pending (baseline)', () => onePending('none', baseline)],
        [
          'hook inbox, 1 pending, 10,000 delivered in the live file (baseline)',
          () => onePending('live', baseline),
        ],
      ]
    : [];

  const cases = [
    ['node -e 0', () => timed([process.execPath, '-e', '0'], base)],
    ['status --line', () => timed([process.execPath, CLI, 'status', '--line'], base)],
    ['hook inbox, nothing pending', () => nothingPending()],
    [
      'hook inbox, 10 records',
      () => {
        writeFileSync(inboxFile, JSON.stringify({ ...registered, records }));
        const run = timed(inboxArgs, asChild, stopInput);
        if (!run.stdout.includes('10 new records')) throw new Error(`hook inbox printed ${run.stdout}`);
        return run;
      },
    ],
    ['hook inbox, 1 pending', () => onePending('none')],
    ['hook inbox, 1 pending, 10,000 delivered', () => onePending('settled')],
    ['hook inbox, 1 pending, 10,000 delivered in the live file (before)', () => onePending('live')],
    ...baselineCases,
    [
      'hook context, nothing pending',
      () => {
        writeItems([]);
        return timed(contextArgs, asChild, promptInput);
      },
    ],
    [
      'hook context, 10 records',
      () => {
        writeItems(items);
        const run = timed(contextArgs, asChild, promptInput);
        if (!run.stdout.includes('10 running')) throw new Error(`hook context printed ${run.stdout}`);
        return run;
      },
    ],
  ];
  const times = new Map(cases.map(([name]) => [name, { wall: [], cpu: [] }]));
  for (let i = 0; i < 3; i++) for (const [, run] of cases) run();
  for (let i = 0; i < RUNS; i++) {
    for (const [name, run] of cases) {
      const { ms, cpuMs } = run();
      times.get(name).wall.push(ms);
      times.get(name).cpu.push(cpuMs);
    }
  }
  const floor = times.get('node -e 0');
  const [floorWall, floorCpu] = [median(floor.wall), median(floor.cpu)];

  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${RUNS} runs each; load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}.\n`,
  );
  console.log('| hook (fake Herdr) | median wall | wall vs `node -e 0` | CPU vs `node -e 0` |');
  console.log('|---|---:|---:|---:|');
  for (const [name, { wall, cpu }] of times) {
    const [w, c] = [median(wall), median(cpu)];
    console.log(
      `| \`${name}\` | ${w.toFixed(1)} ms | ${(w / floorWall).toFixed(2)}× | ${(c / floorCpu).toFixed(2)}× |`,
    );
  }
} finally {
  server?.stdin?.end();
  server?.kill('SIGTERM');
  if (server && server.exitCode === null) await new Promise((r) => server.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
