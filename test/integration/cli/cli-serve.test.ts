import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HostSnapshotSchema,
  JobRecordSchema,
  PlacementsSchema,
  SampleSchema,
} from '../../../service/state/schemas/host-schemas.js';
import { QueueSchema } from '../../../service/state/schemas/queue-items-schemas.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { advanceStat, writeProc } from '../../helpers/proc-fixture.js';
import { waitFor } from '../../helpers/wait.js';
import { roomFor5 } from '../jobs/job-queue-fixtures.js';

let box: Sandbox;
let stopRoom: () => void = () => undefined;
const running: Array<ReturnType<typeof startCli>> = [];

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  stopRoom();
  for (const child of running.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await box.cleanup();
});

function serve(args: string[] = [], env: NodeJS.ProcessEnv = box.env) {
  const child = startCli(['serve', ...args], env);
  running.push(child);
  return child;
}

async function readSnapshot() {
  return HostSnapshotSchema.parse(JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8')));
}

async function waitForCpuSample() {
  await waitFor('a CPU sample', async () => (await readSnapshot()).probe.busy !== null || undefined, {
    timeoutMs: 10_000,
  });
}

describe('serve --once', () => {
  it('publishes one schema-valid snapshot with a CPU sample and one samples line, then releases the lock', async () => {
    const result = await runCli(['serve', '--once'], box.env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('published');
    const snapshot = await readSnapshot();
    expect(snapshot.probe.busy).not.toBeNull();
    expect(snapshot.probe.cores).toBeGreaterThan(0);
    expect(snapshot.probe.memory.total_bytes).toBeGreaterThan(0);
    expect(snapshot.host.id).toBe('local');
    const lines = (await readFile(join(box.state, 'samples.jsonl'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(SampleSchema.parse(JSON.parse(lines[0]!)).ts_ms).toBe(snapshot.sample_ms);
    expect((await stat(box.state)).mode & 0o777).toBe(0o700);
    expect((await stat(join(box.state, 'host.json'))).mode & 0o777).toBe(0o600);
    const status = await runCli(['status', '--json'], box.env);
    expect(JSON.parse(status.stdout).hosts[0].service).toBe('down');
  });
});

describe('serve --once runs each action lane once', () => {
  it('admits the tickets pending before it, judged on its own fresh snapshot while it holds the lock', async () => {
    const room = await roomFor5(box, 90_000);
    stopRoom = room.stop;
    // No service yet: both requests are queued.
    const placed = await runCli(['place', '--json'], room.env);
    expect(placed.code).toBe(1);
    const marker = join(box.root, 'ran');
    const release = join(box.root, 'release');
    // The job holds its reservation until the test has read placements.json: a job that ended first
    // would have given it back already. It gives up after 60 s, so a failed test leaves no job behind.
    const script = `echo ran > ${marker}; i=0; while [ ! -e ${release} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done`;
    const run = await runCli(['run', '--json', '--cwd', box.root, '--', 'sh', '-c', script], room.env);
    expect(run.code).toBe(1);
    const ids = [JSON.parse(placed.stdout).ticket, JSON.parse(run.stdout).ticket];

    const once = await runCli(['serve', '--once'], room.env);
    expect(once).toMatchObject({ code: 0, stderr: '' });
    const queue = QueueSchema.parse(JSON.parse(await readFile(join(box.state, 'queue.json'), 'utf8')));
    expect(queue.tickets.map((t) => [t.id, t.state])).toEqual(ids.map((id) => [id, 'admitted']));
    const placements = PlacementsSchema.parse(
      JSON.parse(await readFile(join(box.state, 'placements.json'), 'utf8')),
    );
    expect(placements.reservations.map((r) => r.id).sort()).toEqual(
      queue.tickets.map((t) => t.reservation).sort(),
    );
    // The admitted job was launched, once.
    await waitFor(
      'the job',
      async () => ((await readFile(marker, 'utf8').catch(() => '')) === 'ran\n' ? true : undefined),
      { timeoutMs: 10_000 },
    );
    const records = (await readdir(join(box.state, 'jobs'))).filter((n) => n.endsWith('.json'));
    expect(records).toHaveLength(1);
    await writeFile(release, '');
    // Its supervisor writes the final record after the job: left running past the test, it made
    // the removed sandbox's state dir anew (listed by the global teardown).
    const record = join(box.state, 'jobs', records[0] as string);
    await waitFor(
      'the job to end',
      async () => JobRecordSchema.parse(JSON.parse(await readFile(record, 'utf8'))).ended_ms !== null,
    );
  });
});

describe('serve as a service', () => {
  it('holds the lock: status says up, a second serve exits 2 naming the holder, SIGTERM exits 0', async () => {
    const first = serve(['--interval', '0.3']);
    await waitForCpuSample();
    const status = await runCli(['status', '--json'], box.env);
    expect(JSON.parse(status.stdout).hosts[0].service).toBe('up');

    const second = await runCli(['serve'], box.env);
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain(`pid ${first.pid}`);

    first.kill('SIGTERM');
    expect(await exited(first)).toEqual({ code: 0, signal: null });
    const after = await runCli(['status', '--json'], box.env);
    expect(JSON.parse(after.stdout).hosts[0].service).toBe('down');
  });

  it('after SIGKILL the snapshot still parses and the next serve takes the lock over at once', async () => {
    const first = serve(['--interval', '0.2']);
    await waitForCpuSample();
    first.kill('SIGKILL');
    await exited(first);
    const left = await readSnapshot();
    expect(left.liveness.pid).toBe(first.pid);
    expect(JSON.parse((await runCli(['status', '--json'], box.env)).stdout).hosts[0].service).toBe('down');

    const next = serve(['--interval', '0.2']);
    // The budget is below the 10 s stale window on purpose: a takeover that waited for the lock to go
    // stale cannot pass, only one that saw the holder dead.
    await waitFor('takeover', async () => (await readSnapshot()).liveness.pid === next.pid || undefined, {
      timeoutMs: 8_000,
    });
    next.kill('SIGTERM');
    expect((await exited(next)).code).toBe(0);
  });

  it('derives busy from the previous tick: the first publication has no sample, later ones do', async () => {
    const proc = join(box.root, 'fakeroot');
    let total = 10_000;
    let idle = 8_000;
    await writeProc(proc, { cores: 4, total, idle });
    const env = { ...box.env, DOGSLED_TEST: '1', DOGSLED_TEST_PROBE_ROOT: proc };
    const child = serve(['--interval', '0.25'], env);
    const first = await waitFor('first snapshot', async () => await readSnapshot(), { timeoutMs: 10_000 });
    expect(first.probe.busy).toBeNull();
    expect(first.headroom.eligible).toBe(false);
    expect(first.headroom.reason.some((r) => r.startsWith('no cpu sample'))).toBe(true);
    // A kernel that is 75% busy: every 100 ticks, 25 idle.
    // One write at a time: two overlapping writes of stat.tmp would race on its rename.
    let writing = Promise.resolve();
    const ticker = setInterval(() => {
      total += 100;
      idle += 25;
      const shape = { cores: 4, total, idle };
      writing = writing.then(() => advanceStat(proc, shape));
    }, 20);
    try {
      const busy = await waitFor('busy', async () => (await readSnapshot()).probe.busy ?? undefined, {
        timeoutMs: 10_000,
      });
      expect(busy).toBeCloseTo(0.75, 5);
      const snapshot = await readSnapshot();
      expect(snapshot.probe.cores).toBe(4);
      expect(snapshot.headroom.measured).toBeCloseTo(1, 5);
    } finally {
      clearInterval(ticker);
      await writing;
    }
    child.kill('SIGTERM');
    await exited(child);
  });

  it('stops with one error line and exit 2 when a measurement fails, leaving the last snapshot', async () => {
    const proc = join(box.root, 'fakeroot');
    await writeProc(proc, { cores: 2, total: 1000, idle: 500 });
    const env = { ...box.env, DOGSLED_TEST: '1', DOGSLED_TEST_PROBE_ROOT: proc };
    const child = serve(['--interval', '0.2'], env);
    const before = await waitFor('a snapshot', async () => await readSnapshot(), { timeoutMs: 10_000 });
    await writeFile(join(proc, 'proc', 'meminfo'), 'MemTotal: 1000 kB\n');
    const end = await exited(child);
    expect(end.code).toBe(2);
    const errors = child
      .output()
      .split('\n')
      .filter((line) => line.startsWith('dogsled: serve: measurement failed'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('MemAvailable');
    const after = await readSnapshot();
    expect(after.probe.cores).toBe(2);
    expect(after.sample_ms).toBeGreaterThanOrEqual(before.sample_ms);
    expect(JSON.parse((await runCli(['status', '--json'], box.env)).stdout).hosts[0].service).toBe('down');
  });
});

describe('serve refuses bad input before writing anything', () => {
  it.each([['0'], ['-1'], ['abc'], ['1e3'], ['']])('--interval %j', async (value) => {
    const result = await runCli(['serve', '--interval', value], box.env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--interval');
    await expect(stat(box.state)).rejects.toThrow();
  });

  it.each([
    ['an unknown key', 'free_cores = 3\n', 'unknown key "free_cores"'],
    ['a [hooks] table', '[hooks]\nsetup = []\n', 'unknown key "hooks"'],
    ['malformed TOML', 'reservation_load = = 1\n', 'malformed TOML at line 1'],
    ['a bad duration', 'reservation_ttl_ms = "1.5h"\n', 'bad duration "1.5h"'],
  ])('a config with %s', async (_what, text, message) => {
    await writeFile(box.configPath, text);
    const result = await runCli(['serve', '--once'], box.env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(message)]);
    expect(result.stderr).toContain(box.configPath);
    await expect(stat(box.state)).rejects.toThrow();
  });

  it('an explicit --config that does not exist', async () => {
    const result = await runCli(['serve', '--once', '--config', join(box.root, 'nope.toml')], box.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nope.toml: file not found');
  });
});
