// Jobs in a real tmux: `run` from inside a tmux pane (no Herdr anywhere) opens the job in a window of
// its own in the caller's session, as that window's program, records the pane, shows the end on the
// pane before closing the window, and `run --wait` exits with the job's status.

import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { JobRecordSchema } from '../../../service/state/schemas/host-schemas.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { startTmuxServer, type TmuxServer } from '../../helpers/tmux-server.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let lock: ServiceLock;
let server: TmuxServer;
let env: NodeJS.ProcessEnv;
let work: string;
let callerPane: string;

beforeEach(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
  await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 0 }));
  work = join(box.root, 'work');
  await mkdir(work);
  server = await startTmuxServer({
    dir: box.root,
    name: 'jobs',
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: box.home, DOGSLED_STATE: box.state },
  });
  callerPane = (await server.tmux('display-message', '-p', '-t', 'base:', '#{pane_id}')).trim();
  // The caller runs "in" the base session's pane, as a shell there would.
  env = { ...box.env, ...server.env, TMUX_PANE: callerPane };
});

afterEach(async () => {
  await server.kill();
  await lock.release();
  await box.cleanup();
});

async function record(id: string): Promise<JobRecord> {
  return JobRecordSchema.parse(JSON.parse(await readFile(join(box.state, 'jobs', `${id}.json`), 'utf8')));
}

async function windows(): Promise<string[]> {
  return (await server.tmux('list-windows', '-a', '-F', '#{session_name}:#{window_id}:#{window_name}'))
    .trim()
    .split('\n');
}

describe('jobs in tmux', () => {
  it('runs the job in its own window of the caller session and exits with its status', async () => {
    const result = await runCli(['run', '--wait', '--json', '--', 'sh', '-c', 'echo hi; exit 3'], env, {
      cwd: work,
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(3);
    const job = JSON.parse(result.stdout) as { job: string; pane: string; exit_code: number };
    expect(job.exit_code).toBe(3);
    const saved = await record(job.job);
    expect(job.pane).toBe(saved.pane);
    expect(saved.pane).toMatch(/^%\d+$/);
    expect(saved.pane).not.toBe(callerPane);
    expect(saved.tab).toMatch(/^@\d+$/);
    expect(saved.workspace).toBe(
      (await server.tmux('display-message', '-p', '-t', callerPane, '#{session_id}')).trim(),
    );
    // The window closes once the job has ended; only the caller's window is left.
    await waitFor(
      'the job window to close',
      async () => ((await windows()).length === 1 ? true : undefined),
      { timeoutMs: 10_000 },
    );
  });

  it('keeps hostile arguments whole through tmux', async () => {
    const out = join(work, 'args.txt');
    const args = ['a;', ';', '#{pane_id}', '-t', 'x\\;', "it's"];
    const result = await runCli(
      ['run', '--wait', '--', 'sh', '-c', 'printf "%s|" "$@" > "$0"', out, ...args],
      env,
      { cwd: work, timeoutMs: 30_000 },
    );
    expect(result.code).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(`${args.join('|')}|`);
  });
});
