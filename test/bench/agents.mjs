// The service with agent panes: tick time, CPU and memory of `dogsled serve` reading 50 agent panes
// from the fake Herdr (each with a Claude transcript and a checkout shared by five panes) against
// the same service with no panes. The budget is the service together with the job supervisor it
// keeps warm and the git processes it waits for, so all three are counted. Run by `npm run bench`;
// BENCH_SECONDS shortens it.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, median, ROOT, residentCost, SECONDS, stop, warmPid } from './lib.mjs';

const PANES = 50;
const REPOS = 10;
const TRANSCRIPT_LINES = 2000;

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-agents-'));
const home = join(work, 'home');
const socket = join(work, 'h.sock');
mkdirSync(home, { recursive: true });

function call(method, params = {}) {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buffer = '';
    s.setEncoding('utf8');
    s.on('connect', () => s.write(`${JSON.stringify({ id: 'bench', method, params })}\n`));
    s.on('data', (d) => {
      buffer += d;
    });
    s.on('error', reject);
    s.on('end', () => {
      const reply = JSON.parse(buffer.split('\n')[0]);
      if (reply.error) reject(new Error(`${method}: ${reply.error.message}`));
      else resolve(reply.result);
    });
  });
}

async function startHerdr() {
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(work, 'config') };
  for (const key of Object.keys(env)) if (key.startsWith('HERDR_')) delete env[key];
  const server = spawn(process.execPath, [join(ROOT, 'test/fakes/herdr/server.mjs'), '--socket', socket], {
    env,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  for (let i = 0; i < 300; i++) {
    if (await call('ping').catch(() => undefined)) return server;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('fake herdr did not start');
}

function repository(i) {
  const dir = join(home, 'src', `repo${i}`);
  mkdirSync(dir, { recursive: true });
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@example.com', ...args], { cwd: dir });
  git('-c', 'init.defaultBranch=main', 'init', '-q');
  writeFileSync(join(dir, 'README.md'), `repo ${i}\n`);
  git('add', '.');
  git('commit', '-qm', 'first');
  git('checkout', '-qb', `feat/${i}`);
  return dir;
}

/** A Claude session transcript of realistic length, in Claude's project layout. */
function transcript(cwd) {
  const id = randomUUID();
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const lines = [];
  for (let i = 0; i < TRANSCRIPT_LINES; i++) {
    const text = `step ${i}: ${'working on the change '.repeat(8)}`;
    lines.push(
      JSON.stringify({
        type: 'assistant',
        sessionId: id,
        cwd,
        timestamp: new Date(Date.now() - (TRANSCRIPT_LINES - i) * 1000).toISOString(),
        message: { role: 'assistant', model: 'claude-opus-4-1', content: [{ type: 'text', text }] },
      }),
    );
  }
  writeFileSync(join(dir, `${id}.jsonl`), `${lines.join('\n')}\n`);
  return id;
}

async function addAgentPanes(repos) {
  for (let i = 0; i < PANES; i++) {
    const cwd = repos[i % REPOS];
    const { root_pane } = await call('workspace.create', { cwd });
    await call('pane.report_agent', {
      pane_id: root_pane.pane_id,
      source: 'herdr:claude',
      agent: 'claude',
      state: i % 3 === 0 ? 'idle' : 'working',
      agent_session_id: transcript(cwd),
    });
  }
}

/** Runs the service for the measured window and collects its per-tick timings. */
async function measureService(name, interval) {
  const env = {
    ...process.env,
    HOME: home,
    DOGSLED_STATE: join(work, `state-${name.replace(/\W+/g, '-')}`),
    HERDR_SOCKET_PATH: socket,
    DOGSLED_TIMING: '1',
  };
  // BENCH_PROFILE_DIR=dir writes a V8 CPU profile of each service run there, to see where ticks go.
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE_DIR]
    : [];
  const child = spawn(process.execPath, [...profile, CLI, 'serve', '--interval', String(interval)], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ticks = [];
  child.stderr.setEncoding('utf8').on('data', (text) => {
    for (const m of text.matchAll(/timing span tick ([\d.]+)ms/g)) ticks.push(Number(m[1]));
  });
  let warm;
  for (let i = 0; i < 100 && warm === undefined; i++) {
    await new Promise((r) => setTimeout(r, 100));
    warm = warmPid(env.DOGSLED_STATE);
  }
  if (warm === undefined) throw new Error(`${name}: no warm job supervisor`);
  const [cost, warmCost] = await Promise.all([
    residentCost(child, SECONDS),
    residentCost({ pid: warm }, SECONDS),
  ]);
  await stop(child);
  // The first two ticks load modules and prime caches; steady state is what a host lives with.
  const steady = ticks.slice(2);
  return {
    name,
    ticks: steady.length,
    tickMs: steady.length ? median(steady) : Number.NaN,
    ...cost,
    warm: warmCost,
    total: cost.cpuPercent + cost.childCpuPercent + warmCost.cpuPercent,
  };
}

let herdr;
try {
  console.error(`measuring the service with 0 and ${PANES} agent panes, ${SECONDS}s each`);
  herdr = await startHerdr();
  const repos = Array.from({ length: REPOS }, (_, i) => repository(i));
  const empty = await measureService('0 panes, --interval 1', 1);
  await addAgentPanes(repos);
  // One at a time: two services on two cores would skew each other's figures.
  const busy = await measureService(`${PANES} panes, --interval 1`, 1);
  const idle = await measureService(`${PANES} panes, --interval 10`, 10);
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}.\n`);
  console.log(
    `Service with agent panes over ${SECONDS} s (tick = one publication, median of steady ticks):\n`,
  );
  console.log(
    '| service | median tick | tick vs 0 panes | CPU | CPU ms/min | git | supervisor | together | RSS | peak RSS | supervisor RSS |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const pct = (x) => `${x.toFixed(2)}%`;
  const mib = (x) => `${x.toFixed(1)} MiB`;
  for (const r of [empty, busy, idle]) {
    const ratio = Number.isNaN(r.tickMs) ? 'n/a' : `${(r.tickMs / empty.tickMs).toFixed(1)}×`;
    console.log(
      `| ${r.name} | ${r.tickMs.toFixed(1)} ms | ${ratio} | ${pct(r.cpuPercent)} | ${r.cpuMsPerMinute.toFixed(0)} | ${pct(r.childCpuPercent)} | ${pct(r.warm.cpuPercent)} | ${pct(r.total)} | ${mib(r.rssMiB)} | ${mib(r.peakMiB)} | ${mib(r.warm.rssMiB)} |`,
    );
  }
  console.log(
    "\nCPU: the service's own user + system time (also in ms per minute, which a loaded machine moves less);",
  );
  console.log('git: its git processes; together: service, git and its warm job supervisor.');
} finally {
  if (herdr) await stop(herdr);
  rmSync(work, { recursive: true, force: true });
}
