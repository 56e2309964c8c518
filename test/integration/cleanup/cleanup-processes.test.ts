import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  CPU_SAMPLE_MIN_MS,
  cpuNsBetween,
  hotProcesses,
  outsidePaneAncestry,
  PRECISE_SAMPLE_MIN_MS,
} from '../../../service/cleanup/processes.js';
import {
  CPU_THREADS_READ_MAX,
  type CpuTime,
  type ProcessEntry,
  readProcessTable,
} from '../../../service/process/process-table.js';
import { type ProcessShape, writeProcesses } from '../../helpers/proc-fixture.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

function statLine(pid: number, comm: string, ppid: number, threads = 1): string {
  const rest = [ppid, pid, pid, 0, -1, 4194560, 100, 0, 0, 0, 5, 3, 0, 0, 20, 0, threads, 0, 12345];
  return `${pid} (${comm}) S ${rest.join(' ')} 0 0\n`;
}

function entry(pid: number, ppid: number): ProcessEntry {
  return { pid, ppid, comm: `p${pid}`, threads: 1 };
}

describe('outsidePaneAncestry', () => {
  // 1 init; 10 herdr pane root -> 11 shell -> 12 cargo; 20 sshd -> 21 busy; 30 orphan of a vanished parent
  const table = [
    entry(1, 0),
    entry(10, 1),
    entry(11, 10),
    entry(12, 11),
    entry(20, 1),
    entry(21, 20),
    entry(30, 99),
  ];

  test('leaves out pane roots and everything below them, and our own process', () => {
    const outside = outsidePaneAncestry(table, [10], 21).map((process) => process.pid);
    expect(outside).toEqual([1, 20, 30]);
  });

  test('without panes every process is outside', () => {
    expect(outsidePaneAncestry(table, [], 0)).toHaveLength(table.length);
  });

  test('a parent loop ends the walk instead of hanging', () => {
    expect(outsidePaneAncestry([entry(5, 6), entry(6, 5)], [10], 0).map((p) => p.pid)).toEqual([5, 6]);
  });
});

describe('readProcessTable', () => {
  test('reads every numeric entry, with cwd when it can be read', async () => {
    const root = await tempDir();
    const proc = join(root, 'proc');
    await mkdir(join(proc, '100'), { recursive: true });
    await mkdir(join(proc, '200'), { recursive: true });
    await mkdir(join(proc, 'self'), { recursive: true });
    await writeFile(join(proc, '100', 'stat'), statLine(100, 'bash', 1));
    await writeFile(join(proc, '200', 'stat'), statLine(200, 'cargo', 100, 8));
    await symlink('/home/ada/repo', join(proc, '100', 'cwd'));
    const table = await readProcessTable(proc);
    expect(table).toEqual({
      ok: true,
      processes: [
        { pid: 100, ppid: 1, comm: 'bash', threads: 1, cwd: '/home/ada/repo' },
        { pid: 200, ppid: 100, comm: 'cargo', threads: 8 },
      ],
    });
  });

  test('a process that exits while we read is skipped', async () => {
    const proc = join(await tempDir(), 'proc');
    await mkdir(join(proc, '300'), { recursive: true });
    expect(await readProcessTable(proc)).toEqual({ ok: true, processes: [] });
  });

  test('a table that cannot be read is an error, not an empty table', async () => {
    const table = await readProcessTable(join(await tempDir(), 'no-proc'));
    expect(table).toEqual({
      ok: false,
      error: expect.stringMatching(/^process table: cannot read .*no-proc \(ENOENT\)$/),
    });
  });

  test('a stat file that does not parse makes the table unreadable', async () => {
    const proc = join(await tempDir(), 'proc');
    await mkdir(join(proc, '7'), { recursive: true });
    await writeFile(join(proc, '7', 'stat'), 'nonsense');
    expect(await readProcessTable(proc)).toEqual({
      ok: false,
      error: `process table: ${proc}/7/stat does not parse`,
    });
  });

  test('the real table holds this process with its parent and working directory', async () => {
    const table = await readProcessTable();
    if (!table.ok) throw new Error(table.error);
    const self = table.processes.find((entry) => entry.pid === process.pid);
    expect(self).toMatchObject({ ppid: process.ppid, cwd: process.cwd() });
  });
});

describe('hotProcesses', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  test("reports a busy process outside pane ancestry by its program name only; a pane's own is not reported", async () => {
    const busy = (): number => {
      const child = spawn('sh', ['-c', 'while :; do :; done', 'secret-token'], { stdio: 'ignore' });
      children.push(child);
      return child.pid as number;
    };
    const [outside, inPane] = [busy(), busy()];
    // Until exec, a freshly forked child still carries node's name.
    for (const pid of [outside, inPane]) {
      await waitFor(
        `pid ${pid} to run sh`,
        async () => (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'sh',
      );
    }
    // A single-threaded loop tops out at one core, so the test lowers the threshold; far enough (1%)
    // that a loop still passes it on a box shared with dozens of runnable processes.
    const report = await hotProcesses({
      paneRootPids: [inPane],
      ownPid: process.pid,
      sampleMs: 1_000,
      thresholdPercent: 1,
    });
    expect(report.error).toBeUndefined();
    const found = report.processes.find((hot) => hot.pid === outside);
    expect(found).toEqual({ pid: outside, name: 'sh', cpu_percent: expect.any(Number) });
    expect(found?.cpu_percent).toBeGreaterThan(1);
    expect(report.processes.map((hot) => hot.pid)).not.toContain(inPane);
  });

  test('a window beside other work lasts until that work ends, and at least its shortest length', async () => {
    const child = spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' });
    children.push(child);
    const pid = child.pid as number;
    await waitFor(
      `pid ${pid} to run sh`,
      async () => (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'sh',
    );
    const table = { ok: true as const, processes: [{ pid, ppid: process.pid, comm: 'sh', threads: 1 }] };
    const sample = (until: Promise<unknown>) => {
      const started = performance.now();
      return hotProcesses({
        paneRootPids: [],
        ownPid: process.pid,
        table,
        sampleMs: 100,
        thresholdPercent: 1,
        until,
      }).then((report) => ({ report, ms: performance.now() - started }));
    };
    const work = new Promise((resolve) => setTimeout(resolve, 600));
    const long = await sample(work);
    expect(long.ms).toBeGreaterThanOrEqual(590);
    expect(long.report.processes).toEqual([{ pid, name: 'sh', cpu_percent: expect.any(Number) }]);
    // Work that ends at once (or fails) leaves the shortest window.
    const short = await sample(Promise.reject(new Error('the survey failed')));
    expect(short.ms).toBeGreaterThanOrEqual(95);
    expect(short.ms).toBeLessThan(590);
    expect(short.report.processes.map((hot) => hot.pid)).toEqual([pid]);
  });

  test('an unreadable process table is reported as the error', async () => {
    const report = await hotProcesses({
      paneRootPids: [],
      ownPid: process.pid,
      table: { ok: false, error: 'process table: cannot read /proc (EACCES)' },
    });
    expect(report).toEqual({ processes: [], error: 'process table: cannot read /proc (EACCES)' });
  });

  test('at the real threshold a single-threaded process is never sampled', async () => {
    const table = {
      ok: true as const,
      processes: [{ pid: process.pid + 1_000_000, ppid: 1, comm: 'x', threads: 1 }],
    };
    expect(await hotProcesses({ paneRootPids: [], ownPid: process.pid, table })).toEqual({ processes: [] });
  });
});

describe('cpuNsBetween', () => {
  const reading = (ticks: number, threads: Record<number, number> | null, start = 100): CpuTime => ({
    start,
    ticks,
    threadNs:
      threads === null ? null : new Map(Object.entries(threads).map(([tid, ns]) => [Number(tid), ns])),
    at: 0n,
  });

  test("counts each thread's nanoseconds, a thread started in between whole", () => {
    const before = reading(10, { 1: 5_000_000, 2: 7_000_000 });
    const after = reading(11, { 1: 6_500_000, 2: 7_250_000, 3: 300_000 });
    expect(cpuNsBetween(before, after)).toBe(1_500_000 + 250_000 + 300_000);
  });

  test('a thread that ended in between still counts through the ticks, less their cutting', () => {
    // Thread 2 used 300 ms and ended: the ticks grew by 31, the live thread by 1 ms.
    const before = reading(100, { 1: 1_000_000, 2: 50_000_000 });
    const after = reading(131, { 1: 2_000_000 });
    expect(cpuNsBetween(before, after)).toBe((31 - 2) * 10_000_000);
  });

  test('without thread times on either side, the ticks alone', () => {
    expect(cpuNsBetween(reading(10, null), reading(35, { 1: 1 }))).toBe(250_000_000);
    expect(cpuNsBetween(reading(10, { 1: 1 }), reading(35, null))).toBe(250_000_000);
  });

  test('a pid that is another process now (another start time) tells nothing', () => {
    expect(cpuNsBetween(reading(10, { 1: 1 }, 100), reading(90, { 1: 9e9 }, 200))).toBeUndefined();
  });

  test('counters that went back (a reused thread id) never count below zero', () => {
    expect(cpuNsBetween(reading(50, { 1: 9_000_000 }), reading(40, { 1: 1_000_000 }))).toBe(0);
  });
});

describe('hotProcesses on a fixture /proc', () => {
  // pid 500: a 4-thread process whose counters the test advances inside the window.
  const shape = (extra: Partial<ProcessShape> = {}): ProcessShape => ({
    pid: 500,
    comm: 'cargo',
    ppid: 1,
    threads: 4,
    start: 4242,
    utime: 100,
    stime: 20,
    schedstat: { 500: 1_000_000_000, 501: 2_000_000_000 },
    ...extra,
  });

  async function sample(first: ProcessShape, second: ProcessShape | null) {
    const proc = join(await tempDir(), 'proc');
    await writeProcesses(proc, [first]);
    const table = await readProcessTable(proc);
    if (!table.ok) throw new Error(table.error);
    const started = performance.now();
    let advance = (): void => {};
    const until = new Promise<void>((resolve) => {
      advance = resolve;
    });
    // Given the table, the first counters are read before hotProcesses first yields.
    const report = hotProcesses({ paneRootPids: [], ownPid: process.pid, table, procRoot: proc, until });
    await rm(join(proc, '500'), { recursive: true, force: true });
    if (second) await writeProcesses(proc, [second]);
    advance();
    return { report: await report, ms: performance.now() - started };
  }

  test('a process whose threads used 20 s in the window is reported at the real threshold, its name cleaned', async () => {
    const { report } = await sample(
      shape({ comm: 'evil\u001b[31m\u0007name' }),
      shape({ comm: 'evil\u001b[31m\u0007name', schedstat: { 500: 11_000_000_000, 501: 12_000_000_000 } }),
    );
    expect(report.error).toBeUndefined();
    expect(report.processes).toEqual([{ pid: 500, name: 'evilname', cpu_percent: expect.any(Number) }]);
    expect(report.processes[0]?.cpu_percent).toBeGreaterThan(100);
  });

  test('threads that ended in the window count through the ticks', async () => {
    const { report } = await sample(shape(), shape({ utime: 2_100, schedstat: { 500: 1_000_000_000 } }));
    expect(report.processes.map((hot) => hot.pid)).toEqual([500]);
  });

  test("without schedstat the ticks count, over the ticks' longer window", async () => {
    const { report, ms } = await sample(
      shape({ schedstat: {} }),
      shape({ schedstat: {}, utime: 2_100, stime: 120 }),
    );
    expect(report.processes.map((hot) => hot.pid)).toEqual([500]);
    expect(ms).toBeGreaterThanOrEqual(CPU_SAMPLE_MIN_MS - 5);
  });

  test("a live thread without its schedstat, or one that does not parse, falls back to the ticks' window", async () => {
    const noFile = await sample(
      shape({ schedstat: { 500: 1_000_000_000, 501: null } }),
      shape({ schedstat: { 500: 1_000_000_000, 501: null }, utime: 2_100 }),
    );
    expect(noFile.report.processes.map((hot) => hot.pid)).toEqual([500]);
    expect(noFile.ms).toBeGreaterThanOrEqual(CPU_SAMPLE_MIN_MS - 5);
    const garbage = await sample(
      shape({ schedstat: { 500: '12\u001b[2J junk\n' } }),
      shape({ schedstat: { 500: '99999999999 junk\n' }, utime: 100 }),
    );
    expect(garbage.report).toEqual({ processes: [] });
    expect(garbage.ms).toBeGreaterThanOrEqual(CPU_SAMPLE_MIN_MS - 5);
  });

  test('every thread reading "0 0 0" (a kernel that keeps no times) falls back to the ticks', async () => {
    const zero = { 500: '0 0 0\n', 501: '0 0 0\n' };
    const { report, ms } = await sample(shape({ schedstat: zero }), shape({ schedstat: zero, utime: 2_100 }));
    expect(report.processes.map((hot) => hot.pid)).toEqual([500]);
    expect(ms).toBeGreaterThanOrEqual(CPU_SAMPLE_MIN_MS - 5);
  });

  test('with thread times the window is the shorter one, and never shorter', async () => {
    const { report, ms } = await sample(shape(), shape());
    expect(report).toEqual({ processes: [] });
    expect(ms).toBeGreaterThanOrEqual(PRECISE_SAMPLE_MIN_MS - 5);
    expect(PRECISE_SAMPLE_MIN_MS).toBeLessThan(CPU_SAMPLE_MIN_MS);
  });

  test('a pid reused in the window, or gone, is not reported', async () => {
    const reused = await sample(
      shape(),
      shape({ start: 9999, utime: 90_000, schedstat: { 500: 90_000_000_000 } }),
    );
    expect(reused.report).toEqual({ processes: [] });
    const gone = await sample(shape(), null);
    expect(gone.report).toEqual({ processes: [] });
    const zombie = await sample(shape(), shape({ state: 'Z', utime: 90_000 }));
    expect(zombie.report).toEqual({ processes: [] });
  });

  test('a process with more threads than are read one by one counts by its ticks', async () => {
    const { report, ms } = await sample(
      shape({ threads: CPU_THREADS_READ_MAX + 1 }),
      shape({ threads: CPU_THREADS_READ_MAX + 1, utime: 2_100 }),
    );
    expect(report.processes.map((hot) => hot.pid)).toEqual([500]);
    expect(ms).toBeGreaterThanOrEqual(CPU_SAMPLE_MIN_MS - 5);
  });
});

describe('hotProcesses on real multi-threaded processes', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  /** A node process that prints `ready` once its state holds; killed after the test. */
  async function node(source: string): Promise<number> {
    const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(child);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await waitFor('the child to be ready', () => out.includes('ready'));
    return child.pid as number;
  }

  test('two worker threads spinning are reported by the short window; an idle process with threads is not', async () => {
    if (!existsSync(`/proc/${process.pid}/task/${process.pid}/schedstat`)) return;
    const spinner = await node(`
      const { Worker } = require('node:worker_threads');
      let spinning = 0;
      for (let i = 0; i < 2; i++) {
        const worker = new Worker('require("node:worker_threads").parentPort.postMessage(1); for (;;) {}', { eval: true });
        worker.on('message', () => { if (++spinning === 2) console.log('ready'); });
      }`);
    const idle = await node(`setInterval(() => {}, 60_000); console.log('ready');`);
    const table = await readProcessTable();
    if (!table.ok) throw new Error(table.error);
    const mine = table.processes.filter((entry) => entry.pid === spinner || entry.pid === idle);
    expect(mine.every((entry) => entry.threads > 1)).toBe(true);
    const started = performance.now();
    // Past any idle process's few wake-ups, far below two spinning threads even on a box whose two
    // cores are shared with a dozen runnable processes.
    const report = await hotProcesses({
      paneRootPids: [],
      ownPid: process.pid,
      table: { ok: true, processes: mine },
      until: Promise.resolve(),
      thresholdPercent: 10,
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(PRECISE_SAMPLE_MIN_MS - 5);
    expect(report.error).toBeUndefined();
    // Its program name as the kernel has it: `node`, or `node-MainThread` from Node 26, which names
    // its main thread.
    const name = readFileSync(`/proc/${spinner}/comm`, 'utf8').trim();
    expect(report.processes).toEqual([{ pid: spinner, name, cpu_percent: expect.any(Number) }]);
  });
});
