// `dogsled agent --branch` end to end against the fake Herdr and a fake Pi, split by phase from the
// command's DOGSLED_TIMING marks (placement, worktree, setup, Herdr open, pane and files, start to
// ready), against `git worktree add` alone (the floor: what any worktree costs). Then `board --json`
// with 50 children (items, branch observations) against `status --json`. Interleaved with their
// floors so drift hits both alike; prints markdown tables. BENCH_RUNS shortens it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, call as callEnvelope, median, ROOT, RUNS, stop, timeOnce } from './lib.mjs';

const AGENT_RUNS = Math.max(3, Math.min(RUNS, 10));
const FAKE = join(ROOT, 'test', 'fakes', 'herdr');
const AGENTS = join(ROOT, 'test', 'fakes', 'agents', 'bin');
const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-agents-'));
const home = join(work, 'home');
const repo = join(work, 'repo');
const state = join(work, 'state');
mkdirSync(join(home, '.config', 'dogsled'), { recursive: true });
writeFileSync(
  join(home, '.config', 'dogsled', 'config.toml'),
  'free_core_fraction_min = 0.0\nmemory_reserve_bytes = 0\ndisk_free_min_percent = 0\nreservation_load = 0.0\nreservation_ttl_ms = 1000\n',
);
const gitEnv = {
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@example.com',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};
const baseEnv = { ...process.env, ...gitEnv, HOME: home, DOGSLED_STATE: state };
for (const key of Object.keys(baseEnv)) if (/^(HERDR_|DOGSLED_TEST|XDG_)/.test(key)) delete baseEnv[key];
const git = (...args) => execFileSync('git', args, { cwd: repo, env: baseEnv, encoding: 'utf8' });

/** One request to the fake Herdr; its result, or an error naming the method. */
async function call(socketPath, method, params = {}) {
  const reply = await callEnvelope(socketPath, method, params);
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result;
}

async function startHerdr() {
  const socketPath = join(work, 'h.sock');
  const env = {
    ...baseEnv,
    PATH: `${AGENTS}:${baseEnv.PATH}`,
    XDG_CONFIG_HOME: join(work, 'config'),
    XDG_STATE_HOME: join(work, 'xdg-state'),
    FAKE_AGENT_LOG_DIR: join(work, 'agent-log'),
  };
  const server = spawn(
    process.execPath,
    [join(FAKE, 'server.mjs'), '--socket', socketPath, '--settle-ms', '50'],
    {
      env,
      stdio: ['pipe', 'ignore', 'inherit'],
    },
  );
  for (let i = 0; ; i++) {
    if (await call(socketPath, 'ping').catch(() => false)) break;
    if (i > 300) throw new Error('fake herdr did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  const created = await call(socketPath, 'workspace.create', { cwd: home });
  return {
    server,
    socketPath,
    env: {
      ...baseEnv,
      PATH: `${join(FAKE, 'bin')}:${baseEnv.PATH}`,
      HERDR_SOCKET_PATH: socketPath,
      HERDR_ENV: '1',
      HERDR_PANE_ID: created.root_pane.pane_id,
      DOGSLED_TIMING: '1',
    },
  };
}

async function untilEligible() {
  for (let i = 0; i < 100; i++) {
    const status = spawnSync(process.execPath, [CLI, 'status', '--json'], { env: baseEnv, encoding: 'utf8' });
    if (status.status === 0 && JSON.parse(status.stdout).hosts?.[0]?.headroom?.eligible) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the host never became eligible');
}

const TASK = `Bench.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps: [{ reply: 'ok' }] })}\n\`\`\`\n`;

/** One `agent --branch` run: total wall and the time between its DOGSLED_TIMING marks. */
function agentOnce(env, index) {
  const start = process.hrtime.bigint();
  const argv = [
    CLI,
    'agent',
    '--kind',
    'pi',
    '--name',
    `b${index}`,
    '--branch',
    `bench/a${index}`,
    '--message',
    TASK,
  ];
  const r = spawnSync(process.execPath, argv, { env, cwd: repo, encoding: 'utf8' });
  const total = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`agent exited ${r.status}: ${r.stderr}`);
  const at = {};
  for (const line of r.stderr.split('\n')) {
    const m = /^timing ([\d.]+)ms (.+)$/.exec(line);
    if (m) at[m[2]] = Number(m[1]);
  }
  const need = [
    'agent: placed',
    'worktree: added',
    'worktree: set up',
    'agent: worktree ready',
    'agent: pane and files',
    'agent: ready',
  ];
  for (const key of need) if (at[key] === undefined) throw new Error(`no timing mark "${key}": ${r.stderr}`);
  return {
    total,
    placement: at['agent: placed'],
    worktree: at['worktree: added'] - at['agent: placed'],
    setup: at['worktree: set up'] - at['worktree: added'],
    open: at['agent: worktree ready'] - at['worktree: set up'],
    pane: at['agent: pane and files'] - at['agent: worktree ready'],
    ready: at['agent: ready'] - at['agent: pane and files'],
  };
}

/** Writes items.json with 50 children of `owner` (half open, half closed with a branch to land). */
function fiftyChildren(owner) {
  const now = Date.now();
  const items = [];
  const branches = [];
  for (let i = 0; i < 50; i++) {
    const id = `i_bench${String(i).padStart(7, '0')}`;
    const closed = i % 2 === 1;
    items.push({
      id,
      kind: 'agent',
      host: 'local',
      pane: `w9:p${i + 1}`,
      terminal_id: `term_${i}`,
      owner,
      created_ms: now - 60_000,
      closed_ms: closed ? now - 1000 : null,
      close_reason: closed ? 'done' : null,
      job: null,
      ticket: null,
      name: `child-${i}`,
      harness: 'pi',
      model: 'alias/sol',
      branch: `bench/b${i}`,
      repository: repo,
      reply: closed ? 'Done.' : null,
    });
    if (closed) {
      branches.push({
        item: id,
        child: `child-${i}`,
        host: 'local',
        repository: repo,
        branch: `bench/b${i}`,
        ahead: 2,
        dirty: false,
        landed: false,
        observed_ms: now,
      });
    }
  }
  writeFileSync(join(state, 'items.json'), JSON.stringify({ version: 1, items }));
  writeFileSync(join(state, 'branches.json'), JSON.stringify({ version: 1, branches }));
}

let service;
let herdr;
try {
  mkdirSync(repo);
  git('-c', 'init.defaultBranch=main', 'init', '-q');
  writeFileSync(join(repo, 'README.md'), 'bench\n');
  writeFileSync(join(repo, 'dogsled.toml'), '[worktree]\nsetup = ["true"]\n');
  writeFileSync(join(repo, '.git', 'info', 'exclude'), '.worktrees/\n');
  git('add', '.');
  git('commit', '-qm', 'first');
  service = spawn(process.execPath, [CLI, 'serve', '--interval', '1'], { env: baseEnv, stdio: 'ignore' });
  await untilEligible();
  herdr = await startHerdr();
  console.error(`measuring: ${AGENT_RUNS} agent --branch runs, ${RUNS} board runs`);

  const floor = [];
  const runs = [];
  for (let i = 0; i < AGENT_RUNS; i++) {
    const start = process.hrtime.bigint();
    git('worktree', 'add', '-q', '-b', `bench/f${i}`, join(repo, '.worktrees', `f${i}`));
    floor.push(Number(process.hrtime.bigint() - start) / 1e6);
    runs.push(agentOnce(herdr.env, i));
  }
  const floorMs = median(floor);
  const phase = (key) => median(runs.map((run) => run[key]));
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${AGENT_RUNS} runs each.\n`,
  );
  console.log('| `agent --branch` (fake Herdr, fake Pi) | median | vs `git worktree add` |');
  console.log('|---|---:|---:|');
  console.log(`| \`git worktree add\` alone (floor) | ${floorMs.toFixed(1)} ms | 1.0× |`);
  const rows = [
    ['placement (start-up, Herdr, caller, reservation)', 'placement'],
    ['worktree (lock, refs, `git worktree add`, lock reason)', 'worktree'],
    ['setup (`dogsled.toml`: `true`)', 'setup'],
    ['`herdr worktree open`, anchor', 'open'],
    ['launch record, item, contract', 'pane'],
    ['`herdr agent start` to ready', 'ready'],
    ['**whole command**', 'total'],
  ];
  for (const [name, key] of rows) {
    const ms = phase(key);
    console.log(`| ${name} | ${ms.toFixed(1)} ms | ${(ms / floorMs).toFixed(1)}× |`);
  }

  fiftyChildren(herdr.env.HERDR_PANE_ID);
  const board = [process.execPath, CLI, 'board', '--json'];
  const status = [process.execPath, CLI, 'status', '--json'];
  const times = { board: [], status: [] };
  const env = { ...herdr.env, DOGSLED_TIMING: '' };
  for (let i = 0; i < 3; i++) {
    timeOnce(board, env);
    timeOnce(status, env);
  }
  for (let i = 0; i < RUNS; i++) {
    times.status.push(timeOnce(status, env));
    times.board.push(timeOnce(board, env));
  }
  const statusMs = median(times.status);
  console.log('\n| command, 50 children (25 TO LAND) | median wall | vs `status --json` |');
  console.log('|---|---:|---:|');
  console.log(`| \`status --json\` (floor) | ${statusMs.toFixed(1)} ms | 1.00× |`);
  console.log(
    `| \`board --json\` | ${median(times.board).toFixed(1)} ms | ${(median(times.board) / statusMs).toFixed(2)}× |`,
  );
} finally {
  if (service) await stop(service);
  if (herdr) {
    herdr.server.stdin?.end();
    await stop(herdr.server);
  }
  rmSync(work, { recursive: true, force: true });
}
