// `node test/bench/doctor.mjs`: `dogsled doctor --json` on a repository with 200 branches and 20
// worktrees (squash-landed, merged and local-only), against `git for-each-ref` in the same repository
// as the floor. Reports median wall time and the number of git processes each spawns, counted by a
// `git` wrapper first on PATH that logs and execs the real git, and the CPU time (user + system) of
// each command with every process it waited for, git included. Each round runs every command once,
// in alternating order, so a neighbour's load hits them alike. BENCH_RUNS shortens it;
// BENCH_GIT_TRACE=1 prints each git command of the first doctor run with its start and duration;
// BENCH_BASELINE=path/to/dogsled.cjs adds that build's rows, paired in the same rounds;
// BENCH_KEEP=1 keeps the repository and prints where it is (for profiling). The state dir exists,
// as on any host where dogsled has run: doctor and prune start from a code-cached bundle
// (dist/hot/cleanup.cjs), whose cache the warm-up run writes there.
// Needs the built CLI (npm run build).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, childrenCpuMs, median } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const BASELINE = process.env.BENCH_BASELINE;
const BRANCHES = 200;
const WORKTREES = 20;

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-doctor-'));
const home = join(work, 'home');
mkdirSync(join(home, '.config', 'dogsled'), { recursive: true });
const main = join(work, 'main');
const remote = join(work, 'remote.git');
const gitEnv = {
  ...process.env,
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};
const git = (args, options = {}) => execFileSync('git', args, { cwd: main, env: gitEnv, ...options });

const lines = (tag, change = {}) =>
  `${Array.from({ length: 10 }, (_, i) => change[i + 1] ?? `${tag} line ${i + 1}`).join('\n')}\n`;

/**
 * One fast-import stream: an initial commit with a file per branch, each branch changing its own
 * file, then main landing branches 0-99 as squashes and 100-149 as merges; 150-199 stay local.
 */
function buildRepository() {
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote], { env: gitEnv });
  mkdirSync(main);
  git(['init', '-q', '-b', 'main']);
  writeFileSync(join(main, '.git', 'info', 'exclude'), '.worktrees/\n');
  const out = [];
  let mark = 0;
  let time = 1_700_000_000;
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const commit = (ref, message, files, from, merge) => {
    mark += 1;
    time += 60;
    out.push(
      `commit ${ref}\nmark :${mark}\ncommitter Bench <bench@example.com> ${time} +0000\n${data(message)}`,
    );
    if (from) out.push(`from ${from}\n`);
    if (merge) out.push(`merge ${merge}\n`);
    for (const [path, text] of Object.entries(files)) out.push(`M 100644 inline ${path}\n${data(text)}`);
    out.push('\n');
    return `:${mark}`;
  };
  const initial = {};
  for (let i = 0; i < BRANCHES; i++) initial[`f${i}.txt`] = lines(`f${i}`);
  let head = commit('refs/heads/main', 'initial', initial);
  const tips = [];
  for (let i = 0; i < BRANCHES; i++) {
    tips.push(
      commit(
        `refs/heads/b${i}`,
        `branch ${i}`,
        { [`f${i}.txt`]: lines(`f${i}`, { 1: `b${i} change` }) },
        head,
      ),
    );
  }
  for (let i = 0; i < 150; i++) {
    const files = { [`f${i}.txt`]: lines(`f${i}`, { 1: `b${i} change` }) };
    head =
      i < 100
        ? commit('refs/heads/main', `squash b${i}`, files, head)
        : commit('refs/heads/main', `merge b${i}`, files, head, tips[i]);
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: main, env: gitEnv, input: out.join('') });
  git(['reset', '-q', '--hard', 'main']);
  git(['remote', 'add', 'origin', remote]);
  git(['push', '-q', 'origin', 'main', ...Array.from({ length: 20 }, (_, i) => `b${150 + i}`)]);
  git(['remote', 'set-head', 'origin', 'main']);
  for (let i = 0; i < WORKTREES; i++) {
    const branch = i < WORKTREES / 2 ? `b${i}` : `b${180 + i}`;
    git(['worktree', 'add', '-q', join(main, '.worktrees', branch), branch]);
  }
}

/** A `git` first on PATH that appends one line per process to the log, then runs the real git. */
function gitWrapper() {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const log = join(work, 'git.log');
  // The trace leaves out the `-c name=value` settings every call pins (service/git/run-git.ts).
  const body = process.env.BENCH_GIT_TRACE
    ? `s=$(date +%s%N); ${JSON.stringify(real)} "$@"; rc=$?; e=$(date +%s%N); echo "$(( s/1000000 % 100000 )) +$(( (e-s)/1000000 ))ms $*" | sed 's/-c [^ ]*=[^ ]* //g' | cut -c1-160 >> ${JSON.stringify(log)}; exit $rc`
    : `echo x >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"`;
  writeFileSync(join(bin, 'git'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return { bin, log };
}

function measure(argv, env, log, expected = 0) {
  writeFileSync(log, '');
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), { cwd: main, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuMs = childrenCpuMs() - cpuBefore;
  if (result.status !== expected)
    throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  const spawned = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
  return { ms, cpuMs, spawned, stdout: result.stdout.toString('utf8') };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

try {
  console.error(`building a repository with ${BRANCHES} branches and ${WORKTREES} worktrees`);
  buildRepository();
  const { bin, log } = gitWrapper();
  const env = { ...gitEnv, PATH: `${bin}:${process.env.PATH}`, DOGSLED_STATE: join(work, 'state') };
  mkdirSync(env.DOGSLED_STATE, { mode: 0o700 });
  for (const key of Object.keys(env)) if (/^(HERDR_|DOGSLED_TEST)/.test(key)) delete env[key];
  const doctor = ['node', CLI, 'doctor', '--json'];
  const floor = ['git', 'for-each-ref'];
  const first = JSON.parse(measure(doctor, env, log).stdout);
  if (process.env.BENCH_GIT_TRACE) console.error(readFileSync(log, 'utf8'));
  const removable =
    first.worktrees.filter((w) => w.removable).length + first.branches.filter((b) => b.removable).length;
  // prune without --yes off a terminal surveys, prints the plan and exits 2: the survey alone.
  const plan = ['node', CLI, 'prune', '--json'];
  const rows = [
    ['git for-each-ref (floor)', floor, 0],
    ['node -e 0', ['node', '-e', '0'], 0],
    ['doctor --json', doctor, 0],
    ['prune plan', plan, 2],
    ...(BASELINE
      ? [
          ['doctor --json (baseline)', ['node', BASELINE, 'doctor', '--json'], 0],
          ['prune plan (baseline)', ['node', BASELINE, 'prune', '--json'], 2],
        ]
      : []),
  ];
  const runs = new Map(rows.map(([name]) => [name, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const [name, argv, expected] of i % 2 ? [...rows].reverse() : rows) {
      runs.get(name).push(measure(argv, env, log, expected));
    }
  }
  const floorRuns = runs.get('git for-each-ref (floor)');
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, ${RUNS} rounds.\n`,
  );
  console.log(
    `Repository: ${BRANCHES} branches, ${WORKTREES} worktrees; doctor finds ${removable} removable.\n`,
  );
  console.log('| command | median wall | vs `git for-each-ref` (paired) | CPU (mean) | git processes |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name] of rows) {
    const xs = runs.get(name);
    // The ratio of each round against the floor of the same round, then the median.
    const ratio = median(xs.map((x, i) => x.ms / floorRuns[i].ms));
    console.log(
      `| ${name} | ${median(xs.map((x) => x.ms)).toFixed(1)} ms | ${ratio.toFixed(1)}× | ${mean(xs.map((x) => x.cpuMs)).toFixed(0)} ms | ${median(xs.map((x) => x.spawned))} |`,
    );
  }
  console.log(
    '\nCPU is user + system time of the command and every process it waited for (git included), in 10 ms ticks. doctor --json includes the report-only processes section (a CPU sample of the multi-threaded processes outside panes); the prune plan is the same survey without it.',
  );
} finally {
  if (process.env.BENCH_KEEP) console.error(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
