// Log capture of `dogsled exec`: a job writing 200 MB to stdout, against the floor `WRITER | cat >
// file` measured in the same run, interleaved so drift hits both alike. exec runs headless with its
// stdout on /dev/null (how a headless launch runs it) and on a pipe this script drains (a pane that
// keeps up). Also the peak RSS of exec and of its supervisor, to show a fast writer does not grow
// memory. Prints medians and ratios as markdown. BENCH_RUNS (default 5) and BENCH_MB shorten it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, median, procStat } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MB = Number(process.env.BENCH_MB ?? 200);
const BYTES = MB * 1_000_000;
const WRITER = ['head', '-c', String(BYTES), '/dev/zero'];

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-capture-'));
const state = join(work, 'state');
const jobs = join(state, 'jobs');
mkdirSync(jobs, { recursive: true, mode: 0o700 });
const env = { ...process.env, HOME: work, DOGSLED_STATE: state };
for (const key of Object.keys(env)) if (/^(HERDR_|DOGSLED_(TEST|EXEC))/.test(key)) delete env[key];

let serial = 0;

/** A created job record, as `run` writes it. */
function newJob(command) {
  const id = `j_bench${++serial}`;
  const record = {
    version: 1,
    id,
    command,
    cwd: work,
    host: 'local',
    owner: null,
    pane: null,
    created_ms: Date.now(),
    started_ms: null,
    ended_ms: null,
    exit_code: null,
    signal: null,
    reason: null,
    timeout_ms: null,
    idle_timeout_ms: null,
  };
  writeFileSync(join(jobs, `${id}.json`), JSON.stringify(record), { mode: 0o600 });
  return id;
}

/** Runs argv to its end; stdout to /dev/null ('null') or a drained pipe ('pipe'). Wall ms and peak RSS. */
function timed(argv, stdout, watchJob) {
  // Each run starts with nothing dirty: a record's fsync would otherwise wait for the writeback of
  // the previous run's 200 MB (ext4 data=ordered), and the floor never fsyncs.
  spawnSync('sync');
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const out = stdout === 'null' ? openSync('/dev/null', 'w') : 'pipe';
    const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', out, 'pipe'] });
    child.stdout?.resume();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    const peaks = { exec: 0, supervisor: 0 };
    const sample = () => {
      try {
        peaks.exec = Math.max(peaks.exec, procStat(child.pid).hwmKiB);
      } catch {}
      if (!watchJob) return;
      try {
        const record = JSON.parse(readFileSync(join(jobs, `${watchJob}.json`), 'utf8'));
        if (record.wrapper_pid)
          peaks.supervisor = Math.max(peaks.supervisor, procStat(record.wrapper_pid).hwmKiB);
      } catch {}
    };
    const sampler = setInterval(sample, 20);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr}`));
      else resolve({ ms, ...peaks });
    });
  });
}

const floorRun = async () => {
  const file = join(work, 'floor.out');
  const line = `${WRITER.join(' ')} | cat > ${file}`;
  const result = await timed(['sh', '-c', line], 'null');
  if (statSync(file).size !== BYTES) throw new Error('floor: short file');
  rmSync(file);
  return result;
};

const execRun = async (stdout) => {
  const id = newJob(WRITER);
  const result = await timed([process.execPath, CLI, 'exec', id, '--', ...WRITER], stdout, id);
  const log = join(jobs, `${id}.log`);
  if (statSync(log).size !== BYTES)
    throw new Error(`exec: log has ${statSync(log).size} bytes, not ${BYTES}`);
  rmSync(log);
  return result;
};

try {
  console.error(`measuring: ${RUNS} runs of ${MB} MB each`);
  await floorRun();
  await execRun('null');
  const rows = { floor: [], null: [], pipe: [], fixed: [] };
  for (let i = 0; i < RUNS; i++) {
    rows.floor.push(await floorRun());
    rows.null.push(await execRun('null'));
    rows.pipe.push(await execRun('pipe'));
    rows.fixed.push(await execRun('null', ['true'], 0));
  }
  const floorMs = median(rows.floor.map((r) => r.ms));
  const line = (name, runs, mb = MB) => {
    const ms = median(runs.map((r) => r.ms));
    const mbps = mb === 0 ? '–' : `${(mb / (ms / 1000)).toFixed(0)} MB/s`;
    // The floor's figure would be sh's: not comparable, so not shown.
    const peak = (key) =>
      runs === rows.floor ? '–' : `${(Math.max(...runs.map((r) => r[key])) / 1024).toFixed(1)} MiB`;
    return `| ${name} | ${ms.toFixed(0)} ms | ${mbps} | ${(ms / floorMs).toFixed(2)}× | ${peak('exec')} | ${peak('supervisor')} |`;
  };
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}.\n`);
  console.log(`A job writing ${MB} MB (\`${WRITER.join(' ')}\`), median of ${RUNS} runs:\n`);
  console.log(
    '| capture | median wall | throughput | vs `cat > file` | exec peak RSS | supervisor peak RSS |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  console.log(line('`WRITER \\| cat > file` (floor)', rows.floor));
  console.log(line('`exec`, stdout on /dev/null', rows.null));
  console.log(line('`exec`, stdout on a drained pipe', rows.pipe));
  console.log(line('`exec -- true` (no output: the fixed cost)', rows.fixed, 0));
  console.log(
    '\nThe job writes the log itself, so capture adds no copy; the fixed cost is two node starts and ' +
      'three fsynced record updates. A drained-pipe stdout adds the copy to the pane.',
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
