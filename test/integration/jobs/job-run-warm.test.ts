// The supervisor `serve` keeps warm (service/daemon/warm-worker.ts, service/jobs/supervisor/exec-warm.ts): a
// waiting headless `run` hands it its job, so the job's supervisor is that already-started process,
// and the service starts the next one. One real service for the whole file. Every failure to hand it
// over (a frozen warm supervisor, hostile bytes on its socket, a directory, FIFO or stale socket in
// its place) falls back to a supervisor of the run's own, with the same job: run once, with the
// caller's environment, directory, exit status and signal.

import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { JobRecordSchema } from '../../../service/state/schemas/host-schemas.js';
import { CLI, exited, runCli, type Sandbox, spawnCli, startCli } from '../../helpers/cli.js';
import { stopInLock, stoppedItself } from '../../helpers/frozen-lock.js';
import { freshHost } from '../../helpers/run-fixtures.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { waitFor } from '../../helpers/wait.js';
import {
  claimLine as claimLineOf,
  theWarmOne as theWarmOneOf,
  warmPids as warmPidsOf,
} from '../../helpers/warm-supervisor.js';
import {
  type RoomyService,
  startRoomyService,
  stopRoomyService,
  untilEligible,
} from './job-queue-fixtures.js';

let box: Sandbox;
let work: string;
let env: NodeJS.ProcessEnv;
let serve: ReturnType<typeof startCli>;
let attempt = 0;

let service: RoomyService | undefined;

beforeAll(async () => {
  service = await startRoomyService();
  ({ box, work, env, serve } = service);
});

afterAll(() => stopRoomyService(service));

const sock = () => join(box.state, 'supervisor.sock');

async function record(id: string): Promise<JobRecord> {
  return JobRecordSchema.parse(JSON.parse(await readFile(join(box.state, 'jobs', `${id}.json`), 'utf8')));
}

/** The one job whose command's last word is `last` (each test names its jobs apart). */
async function jobRunning(last: string): Promise<JobRecord> {
  const found: JobRecord[] = [];
  for (const name of await readdir(join(box.state, 'jobs'))) {
    if (!name.endsWith('.json')) continue;
    const job = await record(name.slice(0, -'.json'.length));
    if (job.command.at(-1) === last) found.push(job);
  }
  expect(found).toHaveLength(1);
  return found[0] as JobRecord;
}

/**
 * Until the state files a run writes have been left alone for a second: the service closes a
 * finished job's item and ends its room a tick after the job, and a run that finds one of their
 * locks held then takes the waiting writer, which loads what the lean path never does (by design).
 * The tests that count the lean path's modules start from a quiet state.
 */
async function settled(): Promise<void> {
  const files = ['items.json', 'placements.json', 'jobs'].map((name) => join(box.state, name));
  const stamp = async () =>
    (
      await Promise.all(
        files.map((file) =>
          stat(file).then(
            (s) => s.mtimeMs,
            () => 0,
          ),
        ),
      )
    ).join(' ');
  let last = await stamp();
  let since = Date.now();
  await waitFor(
    'the state files to settle',
    async () => {
      const now = await stamp();
      if (now !== last) {
        last = now;
        since = Date.now();
      }
      return Date.now() - since >= 1000;
    },
    { timeoutMs: 20_000, intervalMs: 100 },
  );
}

/** Everything `stream` gives until it ends, read from now on. */
function text(stream: Readable | null): Promise<string> {
  if (stream === null) return Promise.resolve('');
  return new Promise((resolve, reject) => {
    let got = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      got += chunk;
    });
    stream.once('end', () => resolve(got));
    stream.once('error', reject);
  });
}

const warmPids = () => warmPidsOf(box.state);
const theWarmOne = (not?: number) => theWarmOneOf(box.state, not);

const claimLine = (line: string) => claimLineOf(box.state, line, 'latin1');

describe('run --wait headless with the service running', () => {
  it('is supervised by the warm process, with the caller environment, directory and status', async () => {
    const warm = await theWarmOne();
    const script = 'echo "[$MY_VAR] [$PWD] [$(pwd)]"; env | grep -c DOGSLED_EXEC_; exit 7';
    const result = await runCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', script, 'env-cwd'], {
      ...env,
      MY_VAR: 'mine \u001b[31m',
    });
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toBe(`[mine \u001b[31m] [${work}] [${work}]\n0\n`);
    const job = await jobRunning('env-cwd');
    expect(job).toMatchObject({ wrapper_pid: warm, exit_code: 7, signal: null, reason: null });
    // Its environment was read and removed, as any supervisor does.
    await expect(stat(join(box.state, 'jobs', `${job.id}.env`))).rejects.toThrow();
    // The service started the next one, and the claimed one has gone with its job.
    const next = await theWarmOne(warm);
    expect(next).not.toBe(warm);
  });

  it("runs no top level of zod, the store, the waiting lock, the schemas, Herdr's or tmux's adapter, or the fleet's reservation writer", async () => {
    // Counted, not timed: V8's coverage of the run bundle says which of its modules ran their top
    // level (a lazily loaded one is a function named after its path). These are for a lock someone
    // holds, a file in doubt, a launch that failed or another terminal. A first run makes jobs/ and
    // items.json, which the waiting writer creates.
    await theWarmOne();
    expect((await runCli(['run', '--wait', '--cwd', work, '--', 'true'], env)).code).toBe(0);
    await theWarmOne();
    await settled();
    const coverage = join(box.root, `coverage-run-${++attempt}`);
    const result = await runCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo lean', 'lean'], {
      ...env,
      NODE_V8_COVERAGE: coverage,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('lean\n');
    const ran: string[] = [];
    const lazy: string[] = [];
    for (const name of await readdir(coverage)) {
      const report = JSON.parse(await readFile(join(coverage, name), 'utf8')) as {
        result: Array<{
          url: string;
          functions: Array<{ functionName: string; ranges: Array<{ count: number }> }>;
        }>;
      };
      for (const script of report.result.filter((s) => s.url.endsWith('/hot/run.cjs'))) {
        for (const fn of script.functions) {
          lazy.push(fn.functionName);
          if ((fn.ranges[0]?.count ?? 0) > 0) ran.push(fn.functionName);
        }
      }
    }
    expect(ran).toContain('runJob');
    // Each is in the bundle as a module initialised on first use (not inlined at its top), and unused.
    for (const module of [
      'service/state/engine/store.ts',
      'service/state/engine/lock.ts',
      'node_modules/proper-lockfile/index.js',
      'service/state/schemas/queue-items-schemas.ts',
      'service/state/schemas/host-schemas.ts',
      'service/terminal/tmux/tmux.ts',
      'service/terminal/herdr/herdr.ts',
      'service/terminal/port-records.ts',
      'node_modules/zod/mini/index.js',
      'service/hosts/reserve-room.ts',
    ]) {
      expect(lazy, module).toContain(module);
      expect(ran, module).not.toContain(module);
    }
  });

  it('loads no node:fs/promises, readline or thread pool on its headless path, and still prints and exits as the job did', async () => {
    // Counted, not timed: the built-in modules the run loaded, written at exit by a preload. The
    // run bundle reaches node:fs/promises through getters that load it on first use
    // (scripts/build.mjs, LAZY_BUILTIN); the frozen holder below takes the waiting writer, which does.
    await theWarmOne();
    expect((await runCli(['run', '--wait', '--cwd', work, '--', 'true'], env)).code).toBe(0);
    await theWarmOne();
    const out = join(box.root, 'modules-run.txt');
    const preload = join(box.root, 'modules-run.cjs');
    await writeFile(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`,
    );
    const withPreload = { ...env, NODE_OPTIONS: `--require ${preload}` };
    // NODE_OPTIONS is part of the code cache's key: the first run under it compiles the bundle and
    // writes its cache after the job, through the cache writer, which loads what it needs.
    expect((await runCli(['run', '--wait', '--cwd', work, '--', 'true'], withPreload)).code).toBe(0);
    const warm = await theWarmOne();
    await settled();
    // A name of this attempt's own: a retry finds the first attempt's job too.
    const name = `lean-modules-${++attempt}`;
    const result = await runCli(
      ['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo lean; exit 3', name],
      withPreload,
    );
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toBe('lean\n');
    // Handed to the warm supervisor: the path measured is the common one.
    expect((await jobRunning(name)).wrapper_pid).toBe(warm);
    const loaded = (await readFile(out, 'utf8')).split('\n');
    expect(loaded).toContain('NativeModule vm');
    for (const module of ['NativeModule fs/promises', 'NativeModule internal/readline/interface']) {
      expect(loaded).not.toContain(module);
    }
  });

  it('hands a reader that reads late every byte of a job output larger than a pipe holds, then exits with its status', async () => {
    // The CLI exits as soon as its event loop is idle (cli/main.ts, exitOnceIdle): a write still
    // queued on a full pipe keeps it from being idle, so the run waits for its reader. Checked on
    // stdout (the job's output) and, with --json, on stderr (the job's output) beside the document.
    const bytes = 3 * 1024 * 1024;
    const script = `head -c ${bytes} /dev/zero | tr '\\0' x; exit 5`;
    for (const json of [false, true]) {
      await theWarmOne();
      const name = `late-reader-${json}-${++attempt}`;
      const args = [
        'run',
        '--wait',
        ...(json ? ['--json'] : []),
        '--cwd',
        work,
        '--',
        'sh',
        '-c',
        script,
        name,
      ];
      const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const ended = exited(child);
      // Nobody reads until the job has ended: the CLI is then held by its full pipe alone.
      await waitFor(
        'the job to end',
        async () => (await jobRunning(name).catch(() => undefined))?.ended_ms != null,
        {
          timeoutMs: 30_000,
          intervalMs: 50,
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(child.exitCode).toBeNull();
      const [out, err] = await Promise.all([text(child.stdout), text(child.stderr)]);
      expect(await ended).toEqual({ code: 5, signal: null });
      const output = json ? err : out;
      expect(output.length).toBe(bytes);
      expect(output).toBe('x'.repeat(bytes));
      if (json) expect(JSON.parse(out)).toMatchObject({ status: 5, exit_code: 5 });
    }
  });

  it("waits for a holder frozen inside items.json's lock, through the waiting writer, and both jobs run once", async () => {
    await theWarmOne();
    const items = join(box.state, 'items.json');
    const holder = spawnCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo first', 'holder'], {
      ...env,
      ...stopInLock(items),
    });
    try {
      await stoppedItself(holder.child.pid);
      const second = spawnCli(
        ['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo second', 'waiter'],
        env,
      );
      // Its record is written (that lock is free); its item waits for the frozen holder's lock.
      await waitFor("the waiting run's record", async () => {
        for (const name of await readdir(join(box.state, 'jobs'))) {
          if (!name.endsWith('.json')) continue;
          if ((await record(name.slice(0, -'.json'.length))).command.at(-1) === 'waiter') return true;
        }
        return undefined;
      });
      process.kill(holder.child.pid as number, 'SIGCONT');
      const [first, later] = [await holder.done, await second.done];
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toBe('first\n');
      expect(later.code, later.stderr).toBe(0);
      expect(later.stdout).toBe('second\n');
      expect(await jobRunning('holder')).toMatchObject({ exit_code: 0 });
      expect(await jobRunning('waiter')).toMatchObject({ exit_code: 0 });
    } finally {
      try {
        process.kill(holder.child.pid as number, 'SIGCONT');
      } catch {}
    }
  });

  it('takes `terminal = "tmux"` from the config.toml it read once, and refuses a damaged one before placing', async () => {
    await theWarmOne();
    const policy = await readFile(box.configPath, 'utf8');
    const config = join(box.root, 'config-tmux.toml');
    const tmuxDir = join(box.root, 'tmux-none');
    await mkdir(tmuxDir, { recursive: true });
    // tmux's default server in a directory of its own, where none runs: the launch meets no session.
    const tmuxEnv = { ...env, TMUX_TMPDIR: tmuxDir };
    await writeFile(config, `${policy}terminal = "tmux"\n`);
    const chosen = await runCli(['--config', config, 'run', '--wait', '--cwd', work, '--', 'true'], tmuxEnv);
    expect(chosen.code).toBe(2);
    expect(chosen.stderr).toMatch(
      /^dogsled: run: cannot launch job j_\w+ on local: tmux: no session at the default tmux server\n$/,
    );
    for (const [damage, words] of [
      [`${policy}terminal = "screen"\n`, 'terminal: expected "auto" or "tmux", found the string "screen"'],
      [`${policy}[[[\n`, 'malformed TOML at line'],
    ] as const) {
      await writeFile(config, damage);
      const refused = await runCli(
        ['--config', config, 'run', '--wait', '--cwd', work, '--', 'true'],
        tmuxEnv,
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`dogsled: run: config ${config}: ${words}`);
    }
    await rm(config);
    await mkdir(config);
    const directory = await runCli(['--config', config, 'run', '--wait', '--cwd', work, '--', 'true'], env);
    expect(directory.code).toBe(2);
    expect(directory.stderr).toBe(`dogsled: run: config ${config}: not a regular file\n`);
  });

  it('reports a job killed by a signal and one past its --timeout as before', async () => {
    await theWarmOne();
    const killed = await runCli(
      ['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'kill -KILL $$', 'killed'],
      env,
    );
    expect(killed.code, killed.stderr).toBe(137);
    expect(await jobRunning('killed')).toMatchObject({ signal: 'SIGKILL', exit_code: null });
    await theWarmOne();
    const late = await runCli(['run', '--wait', '--timeout', '1s', '--cwd', work, '--', 'sleep', '31'], env);
    expect(late.code, late.stderr).toBe(143);
    expect(await jobRunning('31')).toMatchObject({ reason: 'timeout' });
  });

  it('is stopped by stop, and wait reports it, as any job', async () => {
    const warm = await theWarmOne();
    const run = spawnCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'sleep 30', 'to-stop'], env, {
      timeoutMs: 30_000,
    });
    const job = await waitFor(
      'the job to-stop running with a process group',
      async () => {
        const found = await jobRunning('to-stop').catch(() => undefined);
        return found?.pgid ? found : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(job.wrapper_pid).toBe(warm);
    const stopped = await runCli(['stop', job.id], env);
    expect(stopped).toMatchObject({ code: 0, stdout: `${job.id} stopped (sent SIGTERM)\n` });
    expect((await run.done).code).toBe(143);
    expect(await runCli(['wait', job.id], env)).toMatchObject({ code: 143 });
    expect(await record(job.id)).toMatchObject({ reason: 'stopped', signal: 'SIGTERM', exit_code: null });
  });

  it('supervises a run that does not wait too: the caller returns, the job runs once, wait reports it', async () => {
    const warm = await theWarmOne();
    const started = await runCli(
      ['run', '--cwd', work, '--', 'sh', '-c', 'echo "[$MY_VAR]"; exit 4', 'no-wait'],
      { ...env, MY_VAR: 'mine' },
    );
    expect(started.code, started.stderr).toBe(0);
    const id = /^started (j_\w+) on local \(headless\)/.exec(started.stdout)?.[1];
    expect(id, started.stdout).toBeDefined();
    expect(await runCli(['wait', id as string], env)).toMatchObject({ code: 4 });
    expect(await record(id as string)).toMatchObject({ wrapper_pid: warm, exit_code: 4 });
    expect(await readFile(join(box.state, 'jobs', `${id}.log`), 'utf8')).toBe('[mine]\n');
    await theWarmOne(warm);
  });

  it('gives two concurrent runs one supervisor each, each job run once', async () => {
    await theWarmOne();
    const runs = await Promise.all(
      ['a', 'b'].map((name) =>
        runCli(
          ['run', '--wait', '--cwd', work, '--', 'sh', '-c', `echo ${name}; exit 3`, `two-${name}`],
          env,
          {
            timeoutMs: 30_000,
          },
        ),
      ),
    );
    const jobs = [];
    for (const [i, run] of runs.entries()) {
      expect(run.code, run.stderr).toBe(3);
      expect(run.stdout).toBe(`${['a', 'b'][i]}\n`);
      const job = await jobRunning(`two-${['a', 'b'][i]}`);
      expect(await readFile(join(box.state, 'jobs', `${job.id}.log`), 'utf8')).toBe(`${['a', 'b'][i]}\n`);
      jobs.push(job);
    }
    expect(jobs[0]?.wrapper_pid).not.toBe(jobs[1]?.wrapper_pid);
    await theWarmOne();
  });

  it('keeps listening after hostile or malformed claims, and refuses a job already started', async () => {
    const warm = await theWarmOne();
    for (const line of ['\u001b]0;j_x\u0007\n', 'j_../../etc\n', `j_${'a'.repeat(200)}\n`, '\n']) {
      expect(await claimLine(line)).toBe('refused\n');
    }
    expect(await theWarmOne()).toBe(warm);
    // A claim for an ended job takes the warm one, whose start claim refuses it: nothing runs.
    const done = await runCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo once', 'ended'], env);
    expect(done.stdout).toBe('once\n');
    const next = await theWarmOne(warm);
    const { id } = await jobRunning('ended');
    const before = await readFile(join(box.state, 'jobs', `${id}.json`), 'utf8');
    expect(await claimLine(`${id}\n`)).toBe('refused\n');
    expect(await readFile(join(box.state, 'jobs', `${id}.json`), 'utf8')).toBe(before);
    expect(await readFile(join(box.state, 'jobs', `${id}.log`), 'utf8')).toBe('once\n');
    await theWarmOne(next);
  });

  it('falls back when the warm supervisor is frozen, and the resumed one does not run the job again', async () => {
    const warm = await theWarmOne();
    process.kill(warm, 'SIGSTOP');
    try {
      const result = await runCli(
        ['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo ran; exit 4', 'frozen'],
        env,
        {
          timeoutMs: 30_000,
        },
      );
      expect(result.code, result.stderr).toBe(4);
      expect(result.stdout).toBe('ran\n');
      const job = await jobRunning('frozen');
      const { id } = job;
      expect(job.wrapper_pid).not.toBe(warm);
      const before = await readFile(join(box.state, 'jobs', `${id}.json`), 'utf8');
      // The run that gave up on it removed its socket: the next launch does not wait on it too.
      await expect(stat(sock())).rejects.toThrow(/ENOENT/);
      process.kill(warm, 'SIGCONT');
      // Resumed, it reads the claim its claimer gave up on, is refused the start, and leaves.
      await waitFor('it gone', async () => ((await warmPids()).includes(warm) ? undefined : true), {
        timeoutMs: 20_000,
      });
      expect(await readFile(join(box.state, 'jobs', `${id}.json`), 'utf8')).toBe(before);
      expect(await readFile(join(box.state, 'jobs', `${id}.log`), 'utf8')).toBe('ran\n');
    } finally {
      // Never left frozen, even when an expectation above failed (it may be gone by now).
      try {
        process.kill(warm, 'SIGCONT');
      } catch {}
    }
    await theWarmOne(warm);
  });

  it('leaves with the service: once serve stops, no warm supervisor remains', async () => {
    await theWarmOne();
    serve.kill('SIGTERM');
    await exited(serve);
    await waitFor('none', async () => ((await warmPids()).length === 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
    // Each one's warm-up (exec-warm-up.ts) took its lock in a private directory of TMPDIR, removed.
    expect((await readdir(box.root)).filter((name) => name.startsWith('dogsled-warm-'))).toEqual([]);
  });
});

describe('run --wait headless without a warm supervisor', () => {
  let lock: ServiceLock | undefined;
  beforeAll(async () => {
    // The service stopped with the previous describe: the test plays it, and no warm one answers.
    lock = await holdServiceLock(box.state);
  });
  afterAll(async () => {
    await lock?.release();
  });

  /** A socket whose listener was killed: connecting is refused. */
  async function staleSocket(path: string): Promise<void> {
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`,
    ]);
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGKILL');
    await exited(child);
  }

  it.each([
    ['a directory', (path: string) => mkdir(path)],
    ['a FIFO', async (path: string) => void (await exited(spawn('mkfifo', [path])))],
    ['a stale socket', staleSocket],
  ])('runs the job once when supervisor.sock is %s', async (what, make) => {
    await rm(sock(), { recursive: true, force: true });
    await make(sock());
    await freshHost(box.state, true);
    const result = await runCli(
      ['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo ran; exit 6', `fallback-${what}`],
      {
        ...box.env,
        MY_VAR: 'mine',
      },
    );
    expect(result.code, result.stderr).toBe(6);
    expect(result.stdout).toBe('ran\n');
    const job = await jobRunning(`fallback-${what}`);
    expect(job).toMatchObject({ exit_code: 6 });
    expect(await readFile(join(box.state, 'jobs', `${job.id}.log`), 'utf8')).toBe('ran\n');
  });
});

describe('a warm supervisor that cannot listen', () => {
  it('backs off with one warning, and runs still start their own supervisor', async () => {
    await rm(sock(), { recursive: true, force: true });
    await mkdir(sock());
    const again = startCli(['serve', '--interval', '0.3'], env);
    try {
      // Each warm one fails to put its socket over the directory and exits before taking a job.
      await waitFor(
        'the backoff warning',
        async () =>
          again.output().includes('warm supervisor: exited twice before taking a job') ? true : undefined,
        { timeoutMs: 20_000 },
      );
      await untilEligible(box);
      const result = await runCli(
        ['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo ran', 'no-warm'],
        env,
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('ran\n');
      expect((await stat(sock())).isDirectory()).toBe(true);
      expect(again.output().match(/warm supervisor/g)).toHaveLength(1);
      expect(again.exitCode).toBeNull();
    } finally {
      again.kill('SIGTERM');
      await exited(again);
    }
  });
});
