import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { hotProcesses, outsidePaneAncestry } from '../../../service/cleanup/processes.js';
import { type ProcessEntry, readProcessTable } from '../../../service/process/process-table.js';
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
