// `prune panes` in a real tmux with no Herdr: the pane rule reads tmux's panes (their shells through
// the process table) and closes a window whose shell sits at an empty prompt after its job ended, or
// whose directory is gone, while a window whose shell runs a command and the caller's pane stay.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PruneReportSchema } from '../../../service/cleanup/doctor-report.js';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { probePrompt } from '../../../service/probe/shell-panes.js';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { startTmuxServer, type TmuxServer } from '../../helpers/tmux-server.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let server: TmuxServer;
let port: TerminalPort;
let caller: string;

beforeEach(async () => {
  box = await sandbox();
  server = await startTmuxServer({
    dir: box.root,
    name: 'prune',
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: box.home, SHELL: '/bin/sh' },
  });
  caller = (await server.tmux('display-message', '-p', '-t', 'base:', '#{pane_id}')).trim();
  port = await openTerminal({ env: { ...server.env, TMUX_PANE: caller }, home: box.home });
});

afterEach(async () => {
  await server.kill();
  await box.cleanup();
});

/** A new window of the caller's session whose shell sits at its prompt. */
async function shellWindow(cwd: string): Promise<{ pane_id: string; terminal_id: string; tab_id: string }> {
  const pane = (await port.createTab({ cwd })).root_pane;
  await waitFor(
    `pane ${pane.pane_id} at its prompt`,
    async () => ((await probePrompt(port, pane.pane_id)).state.kind === 'empty' ? true : undefined),
    { timeoutMs: 10_000 },
  );
  return pane;
}

async function endedJob(id: string, pane: { pane_id: string; terminal_id: string }): Promise<void> {
  const now = Date.now();
  const record: JobRecord & { terminal_id: string } = {
    version: 1,
    id,
    command: ['make', 'test'],
    cwd: box.home,
    host: 'local',
    owner: null,
    pane: pane.pane_id,
    terminal_id: pane.terminal_id,
    created_ms: now - 60_000,
    started_ms: now - 59_000,
    ended_ms: now - 1_000,
    exit_code: 0,
    signal: null,
    reason: null,
  };
  await mkdir(join(box.state, 'jobs'), { recursive: true });
  await writeFile(join(box.state, 'jobs', `${id}.json`), JSON.stringify(record));
}

async function windows(): Promise<string[]> {
  return (await server.tmux('list-windows', '-a', '-F', '#{window_id}')).trim().split('\n');
}

describe('prune panes in tmux', () => {
  it('closes an idle shell window whose job ended or whose directory is gone, and keeps a busy one', async () => {
    const idle = await shellWindow(box.home);
    const busy = await shellWindow(box.home);
    const doomed = join(box.root, 'gone');
    await mkdir(doomed);
    const orphan = await shellWindow(doomed);
    await rm(doomed, { recursive: true });
    await endedJob('j_idle', idle);
    await endedJob('j_busy', busy);
    await port.runLine(busy.pane_id, 'sleep 30');
    await waitFor(
      'sleep running',
      async () => ((await probePrompt(port, busy.pane_id)).state.kind === 'running' ? true : undefined),
      { timeoutMs: 10_000 },
    );
    const env = { ...box.env, ...server.env, TMUX_PANE: caller };

    const doctor = await runCli(['doctor', '--json'], env, { cwd: box.home, timeoutMs: 30_000 });
    expect(doctor.code, doctor.stderr).toBe(0);
    const panes = JSON.parse(doctor.stdout).panes as Array<{
      pane: string;
      removable: boolean;
      reason: string;
    }>;
    expect(panes.find((p) => p.pane === busy.pane_id)).toMatchObject({
      removable: false,
      reason: 'runs sleep',
    });
    expect(panes.find((p) => p.pane === caller)).toMatchObject({ removable: false });

    const result = await runCli(['prune', '--yes', '--json', 'panes'], env, {
      cwd: box.home,
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const report = PruneReportSchema.parse(JSON.parse(result.stdout));
    expect(report.failures).toEqual([]);
    expect(report.results.flatMap((r) => r.panes).sort()).toEqual([idle.pane_id, orphan.pane_id].sort());
    const left = await windows();
    expect(left).not.toContain(idle.tab_id);
    expect(left).not.toContain(orphan.tab_id);
    expect(left).toContain(busy.tab_id);
    expect((await port.getPane(caller)).pane_id).toBe(caller);
  });
});
