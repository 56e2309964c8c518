// Backend selection without Herdr, and the headless backend itself: jobs run as real detached
// process groups with their output in a log; everything that needs Herdr is refused with the exact
// one-line message, and the calls the product makes routinely are harmless no-ops.

import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forwardedLater } from '../../../service/terminal/headless/forwarded-later.js';
import { forwardedPort } from '../../../service/terminal/herdr/herdr.js';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { TerminalError } from '../../../service/terminal/terminal-errors.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
let home: string;
let bin: string;
const launched: number[] = [];

beforeEach(async () => {
  dir = await tempDir('dogsled-headless-');
  home = join(dir, 'home');
  bin = join(dir, 'bin');
  await mkdir(home, { recursive: true });
  await mkdir(bin, { recursive: true });
});

afterEach(async () => {
  for (const pgid of launched.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
  }
  await rm(dir, { recursive: true, force: true });
});

/** An environment with no Herdr at all: no variables, and a PATH without a herdr binary. */
function bare(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: `${bin}:/usr/bin:/bin`, HOME: home, ...extra };
}

async function refusal(promise: Promise<unknown>): Promise<TerminalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

describe('openTerminal without Herdr', () => {
  it('picks headless and says HERDR_SOCKET_PATH is unset and no binary is on PATH', async () => {
    const port = await openTerminal({ env: bare(), home, commandName: 'agent' });
    expect(port.kind).toBe('headless');
    expect(port.why).toBe('HERDR_SOCKET_PATH is not set and no herdr binary is on PATH');
    expect(port.insideHerdr).toBe(false);
    const error = await refusal(port.startAgent({ name: 'rev', kind: 'codex', paneId: 'w1:p1' }));
    expect(error.message).toBe(
      'agent needs Herdr or tmux (HERDR_SOCKET_PATH is not set and no herdr binary is on PATH)',
    );
    expect(error.exitCode).toBe(2);
  });

  it('names a socket that does not exist', async () => {
    const socket = join(dir, 'gone.sock');
    const port = await openTerminal({ env: bare({ HERDR_SOCKET_PATH: socket, HERDR_ENV: '1' }), home });
    expect(port.kind).toBe('headless');
    expect(port.why).toBe(`socket ${socket} does not exist and no herdr binary is on PATH`);
  });

  it('names a stale socket that refuses the connection, found at the default path', async () => {
    const socket = join(home, '.config', 'herdr', 'herdr.sock');
    await mkdir(join(home, '.config', 'herdr'), { recursive: true });
    execFileSync('python3', [
      '-c',
      'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])',
      socket,
    ]);
    const port = await openTerminal({ env: bare(), home, commandName: 'board' });
    expect(port.why).toBe(`socket ${socket} refused the connection and no herdr binary is on PATH`);
    const error = await refusal(port.listWorkspaces());
    expect(error.message).toBe(
      `board needs Herdr or tmux (socket ${socket} refused the connection and no herdr binary is on PATH)`,
    );
  });

  it('stays headless when a herdr binary exists but reaches no server, and still asks it for machines', async () => {
    await writeFile(
      join(bin, 'herdr'),
      [
        '#!/bin/sh',
        'if [ "$1" = machine ]; then echo "unknown command: machine" >&2; exit 2; fi',
        'echo \'{"id":"cli:workspace:list","error":{"code":"server_not_running","message":"herdr server is not running"}}\' >&2',
        'exit 1',
      ].join('\n'),
    );
    await chmod(join(bin, 'herdr'), 0o755);
    const port = await openTerminal({ env: bare(), home });
    expect(port.kind).toBe('headless');
    expect(port.why).toBe(
      `HERDR_SOCKET_PATH is not set; ${join(bin, 'herdr')} did not reach a server (server_not_running)`,
    );
    expect(await port.machines()).toBeNull();
  });
});

describe('the headless backend', () => {
  let port: TerminalPort;

  beforeEach(async () => {
    port = await openTerminal({ env: bare(), home });
  });

  it('runs a command as a detached process group with its output appended to the named log', async () => {
    const log = join(dir, 'job.log');
    await writeFile(log, 'earlier\n');
    const job = await port.runCommand({
      cwd: dir,
      argv: ['sh', '-c', 'echo "in $PWD as $JOB_NAME"; printf "\\033[31mred\\033[0m\\n"; exec sleep 30'],
      env: { JOB_NAME: 'j1' },
      logPath: log,
    });
    launched.push(job.pid!);
    expect(job.pid).toBeGreaterThan(0);
    await expect.poll(async () => (await readFile(log, 'utf8')).includes('red')).toBe(true);
    const read = await port.readPane(job.paneId);
    expect(read.text).toBe(`earlier\nin ${dir} as j1\nred\n`);
    expect((await port.readPane(job.paneId, { lines: 1 })).text).toBe('red\n');

    const stat = (await readFile(`/proc/${job.pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    expect(Number(stat[2])).toBe(job.pid); // its own process group
    expect(Number(stat[3])).toBe(job.pid); // and its own session
    await expect
      .poll(async () => (await port.processInfo(job.paneId)).foreground_processes.map((p) => p.name))
      .toEqual(['sleep']);
    const info = await port.processInfo(job.paneId);
    expect(info.foreground_process_group_id).toBe(job.pid);
    expect(info.foreground_processes[0]?.cwd).toBe(dir);
  });

  it('closes a pane by ending its process group, and reports the group gone afterwards', async () => {
    const job = await port.runCommand({ cwd: dir, argv: ['sh', '-c', 'sleep 30 & sleep 30; wait'] });
    launched.push(job.pid!);
    // The shell and both sleeps, once the shell has forked them.
    await expect.poll(async () => (await port.processInfo(job.paneId)).foreground_processes.length).toBe(3);
    await port.closePane(job.paneId);
    await expect.poll(async () => (await refusal(port.processInfo(job.paneId))).code).toBe('pane_not_found');
    await port.closePane(job.paneId); // already gone: nothing to do
  });

  it('reads only a regular log: a FIFO or a directory in its place is refused, never waited on', async () => {
    const log = join(dir, 'job.log');
    const job = await port.runCommand({
      cwd: dir,
      argv: ['sh', '-c', 'echo hi; exec sleep 30'],
      logPath: log,
    });
    launched.push(job.pid!);
    await expect.poll(async () => (await port.readPane(job.paneId)).text).toBe('hi\n');
    await rm(log);
    execFileSync('mkfifo', [log]);
    await expect(port.readPane(job.paneId)).rejects.toThrow(
      `cannot read ${log}: it is a FIFO, not a regular file`,
    );
    await rm(log);
    await mkdir(log);
    await expect(port.readPane(job.paneId)).rejects.toThrow('it is a directory, not a regular file');
    await rm(log, { recursive: true });
    expect((await refusal(port.readPane(job.paneId))).code).toBe('pane_not_found');
  });

  it('launches into a regular log only: a FIFO or a directory in its place is refused, never waited on', async () => {
    const fifo = join(dir, 'fifo.log');
    execFileSync('mkfifo', [fifo]);
    await expect(port.runCommand({ cwd: dir, argv: ['true'], logPath: fifo })).rejects.toThrow(
      `cannot write ${fifo}: no such device or address (ENXIO)`,
    );
    const directory = join(dir, 'dir.log');
    await mkdir(directory);
    await expect(port.runCommand({ cwd: dir, argv: ['true'], logPath: directory })).rejects.toThrow(
      `cannot write ${directory}: illegal operation on a directory (EISDIR)`,
    );
  });

  it('fails to launch a command that does not exist, before returning a pane', async () => {
    await expect(port.runCommand({ cwd: dir, argv: ['no-such-command-xyz'] })).rejects.toThrow(
      'cannot start no-such-command-xyz',
    );
  });

  it('refuses workspaces, tabs, panes, agents and worktrees as needing Herdr or tmux, and plugins as needing Herdr', async () => {
    const why = 'HERDR_SOCKET_PATH is not set and no herdr binary is on PATH';
    const cases: [Promise<unknown>, string][] = [
      [port.createWorkspace({ cwd: dir }), 'workspace create'],
      [port.createTab({}), 'tab create'],
      [port.splitPane({ direction: 'right' }), 'pane split'],
      [port.listAgents(), 'agent list'],
      [port.waitAgent('rev'), 'agent wait'],
      [port.openWorktree({ branch: 'x' }), 'worktree open'],
      [port.runLine('w1:p1', 'ls'), 'pane run'],
    ];
    for (const [call, command] of cases) {
      const error = await refusal(call);
      expect(error.message).toBe(`${command} needs Herdr or tmux (${why})`);
      expect(error.code).toBe('needs_herdr');
    }
    // tmux has no plugin panes: only Herdr would do.
    const plugin = await refusal(port.openPluginPane({ pluginId: 'dogsled', entrypoint: 'sidebar' }));
    expect(plugin.message).toBe(`plugin pane open needs Herdr (${why})`);
  });

  it('answers the routine calls harmlessly: metadata, notifications, listing, machines', async () => {
    expect(await port.reportPaneMetadata('headless:1', { source: 'dogsled', tokens: { a: 'b' } })).toEqual({
      applied: false,
    });
    expect(await port.reportWorkspaceMetadata('w1', { source: 'dogsled', tokens: {} })).toEqual({
      applied: false,
    });
    expect(await port.notify({ title: 'done' })).toEqual({ shown: false, reason: 'no_herdr' });
    expect(await port.listAll()).toEqual({ workspaces: [], tabs: [], panes: [], agents: [] });
    expect(await port.machines()).toBeNull();
  });

  it('refuses forwarding to a machine when there is no herdr binary', async () => {
    const remote = port.forMachine('netcup');
    expect(remote.machine).toBe('netcup');
    const error = await refusal(remote.listPanes());
    expect(error.message).toBe('forwarding to machine netcup needs Herdr (no herdr binary is on PATH)');
  });
});

// The headless port answers forMachine without loading Herdr's adapter: its fixed facts must be the
// adapter's own forwarded port's, and every call must reach that port.
describe('a forwarded port answered before the adapter loads', () => {
  it.each([undefined, '/opt/herdr/bin/herdr'])(
    'has the facts of the forwarded port itself (binary %s)',
    async (binary) => {
      const later = forwardedLater('netcup', binary, bare(), 1_000);
      const real = forwardedPort('netcup', binary, bare(), 1_000);
      for (const fact of ['kind', 'why', 'insideHerdr', 'server', 'machine'] as const)
        expect(later[fact], fact).toEqual(real[fact]);
      expect(later.forMachine('other').why).toBe(real.forMachine('other').why);
      if (binary === undefined) {
        const [a, b] = await Promise.all([refusal(later.listPanes()), refusal(real.listPanes())]);
        expect(a.message).toBe(b.message);
      }
    },
  );
});
