// The process table against a fixture /proc (every field and file in place, and hostile ones) and
// against the real one: this process, a child frozen with SIGSTOP, a zombie, a detached group.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  childNames,
  childPids,
  childPidsSync,
  commandLine,
  groupMembers,
  memoryOf,
  outputTarget,
  parseProcStat,
  processAlive,
  readProcessTable,
  readStat,
  readStatSync,
  selfStart,
  startOf,
  workingDirectory,
} from '../../../service/process/process-table.js';
import { statLine, writeProcesses } from '../../helpers/proc-fixture.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

describe('parseProcStat', () => {
  it('reads every field it names after a program name holding spaces and parentheses', () => {
    const line = '4242 (my (odd) name) S 1 4242 4243 0 -1 4194560 100 0 0 0 1 2 7 5 20 0 3 0 987654 1000 200';
    expect(parseProcStat(line)).toEqual({
      pid: 4242,
      comm: 'my (odd) name',
      state: 'S',
      ppid: 1,
      pgrp: 4242,
      session: 4243,
      tpgid: -1,
      threads: 3,
      start: 987654,
      childTicks: 12,
      cpuTicks: 3,
    });
  });

  it('strips escape sequences and control characters from the program name', () => {
    expect(parseProcStat(statLine({ pid: 5, comm: 'evil\u001b[31m\nname' }))?.comm).toBe('evil name');
  });

  it('refuses a line that is not a whole stat line, or whose numbers are not integers', () => {
    expect(parseProcStat('garbage')).toBeNull();
    expect(parseProcStat('1 (x) S')).toBeNull();
    expect(parseProcStat('')).toBeNull();
    const huge = statLine({ pid: 7, comm: 'x' }).replace(/ 1000 /, ` ${'9'.repeat(400)} `);
    expect(parseProcStat(huge)).toBeNull();
    expect(parseProcStat(statLine({ pid: 7, comm: 'x', ppid: Number.NaN }))).toBeNull();
  });
});

describe('the process table on a fixture /proc', () => {
  async function fixture() {
    const root = join(await tempDir(), 'proc');
    await writeProcesses(root, [
      {
        pid: 100,
        comm: 'bash',
        pgrp: 100,
        start: 500,
        children: [101, 102, 199],
        cwd: '/home/ada/repo',
        stdout: '/state/jobs/j_1.log',
        argv: ['bash', '-c', 'make test'],
        rssKiB: 2048,
        hwmKiB: 4096,
      },
      { pid: 101, comm: 'make', ppid: 100, pgrp: 100, start: 510 },
      { pid: 102, comm: 'defunct', ppid: 100, pgrp: 100, state: 'Z', start: 520 },
      { pid: 300, comm: 'other', pgrp: 300, start: 900, rssKiB: 64 },
    ]);
    return root;
  }

  it('reads a stat line, and nothing for a pid that is not there or a stat that is a directory', async () => {
    const root = await fixture();
    expect(await readStat(101, root)).toMatchObject({ pid: 101, ppid: 100, pgrp: 100, start: 510 });
    expect(await readStat(4242, root)).toBeUndefined();
    await mkdir(join(root, '77', 'stat'), { recursive: true });
    expect(await readStat(77, root)).toBeUndefined();
    await mkdir(join(root, '78'));
    await writeFile(join(root, '78', 'stat'), '78 (cut');
    expect(await readStat(78, root)).toBeUndefined();
  });

  it("lists a group's live members, and none once its leader's pid belongs to another process", async () => {
    const root = await fixture();
    expect((await groupMembers(100, 500, root)).map((member) => member.pid)).toEqual([100, 101]);
    expect(await groupMembers(100, 501, root)).toEqual([]);
    expect(await groupMembers(4242, undefined, root)).toEqual([]);
  });

  it("names a process's children, skipping one that exited since the listing", async () => {
    const root = await fixture();
    expect(await childPids(100, root)).toEqual([101, 102, 199]);
    expect(await childNames(100, root)).toEqual(['make', 'defunct']);
    expect(await childPids(300, root)).toBeNull();
    // The supervisor's samples read them synchronously, alike.
    expect(childPidsSync(100, root)).toEqual([101, 102, 199]);
    expect(childPidsSync(300, root)).toBeNull();
    expect(await childNames(300, root)).toBeNull();
  });

  it('reads memory, argv, working directory and where stdout goes', async () => {
    const root = await fixture();
    expect(memoryOf(100, root)).toEqual({ rss: 2048 * 1024, hwm: 4096 * 1024 });
    expect(memoryOf(300, root)).toEqual({ rss: 64 * 1024, hwm: 64 * 1024 });
    expect(memoryOf(101, root)).toBeUndefined();
    expect(await commandLine(100, root)).toEqual(['bash', '-c', 'make test']);
    expect(await commandLine(101, root)).toBeUndefined();
    expect(await workingDirectory(100, root)).toBe('/home/ada/repo');
    expect(await outputTarget(100, root)).toBe('/state/jobs/j_1.log');
    expect(await outputTarget(101, root)).toBeUndefined();
  });

  it('reads the whole table as rows that are the same on every platform', async () => {
    const root = await fixture();
    const table = await readProcessTable(root);
    expect(table.ok && table.processes.find((entry) => entry.pid === 100)).toEqual({
      pid: 100,
      ppid: 1,
      comm: 'bash',
      threads: 1,
      cwd: '/home/ada/repo',
    });
  });
});

describe('the process table on the real /proc', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
  });

  const start = (argv: string[], detached = false) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: 'ignore', detached });
    children.push(child);
    return child;
  };

  it('knows this process by pid and start time, and a reused pid is not it', async () => {
    const stat = readStatSync(process.pid);
    expect(stat).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(selfStart()).toBe(stat?.start);
    expect(startOf(process.pid)).toBe(stat?.start);
    expect(processAlive(process.pid, selfStart())).toBe(true);
    expect(processAlive(process.pid, (selfStart() ?? 0) + 1)).toBe(false);
    expect(await commandLine(process.pid)).toContain(process.argv[1]);
    expect(await workingDirectory(process.pid)).toBe(process.cwd());
    expect((await memoryOf(process.pid))?.rss).toBeGreaterThan(0);
  });

  it('counts a process frozen with SIGSTOP as alive, and a zombie as dead', async () => {
    const frozen = start(['sleep', '30']);
    const pid = frozen.pid as number;
    await waitFor('the child to exec sleep', () => readStatSync(pid)?.comm === 'sleep');
    const born = startOf(pid);
    process.kill(pid, 'SIGSTOP');
    await waitFor('the child to stop', () => readStatSync(pid)?.state === 'T');
    expect(processAlive(pid, born)).toBe(true);
    // A child that exits while this process does not reap it yet is a zombie for a moment; a
    // shell that never waits keeps its own child one.
    const parent = start(['sh', '-c', 'sleep 0 & exec sleep 30']);
    await waitFor(
      'the parent to start its one child',
      async () => ((await childNames(parent.pid as number)) ?? []).length === 1,
    );
    const [zombie] = (await childPids(parent.pid as number)) ?? [];
    await waitFor('the child to be a zombie', () => readStatSync(zombie as number)?.state === 'Z');
    expect(processAlive(zombie as number, null)).toBe(false);
  });

  it('never hands on the escape sequences a program name can hold', async () => {
    const dir = await tempDir();
    const hostile = join(dir, 'x\u001b]0;owned\u0007y');
    await symlink('/bin/sleep', hostile);
    const child = start([hostile, '30']);
    const pid = child.pid as number;
    await waitFor(
      'the process to rename itself',
      async () => (await readStat(pid))?.comm.startsWith('x') === true,
    );
    expect((await readStat(pid))?.comm).toBe('xy');
    const table = await readProcessTable();
    expect(table.ok && table.processes.find((entry) => entry.pid === pid)?.comm).toBe('xy');
    expect(await childNames(process.pid)).toContain('xy');
  });

  it("lists a detached group's members and a process's children by name", async () => {
    const leader = start(['sh', '-c', 'sleep 30 & exec sleep 31'], true);
    const pgid = leader.pid as number;
    // A forked member carries sh's name until it execs sleep: wait for the names, not the count.
    await waitFor('both group members to exec sleep', async () => {
      const members = await groupMembers(pgid, startOf(pgid) ?? undefined);
      return members.length === 2 && members.every((member) => member.comm === 'sleep');
    });
    const members = await groupMembers(pgid, startOf(pgid) ?? undefined);
    expect(members.map((member) => member.comm)).toEqual(['sleep', 'sleep']);
    expect(members.every((member) => member.session === pgid)).toBe(true);
    expect(await childNames(pgid)).toEqual(['sleep']);
  });
});
