// The owner's item of a job that runs on a peer: the completion worker of a real `serve` never
// closes it for lack of a local record or pane, and closes it once the peer cache shows the job
// ended. A peer cache entry that is a directory or garbage closes nothing and stops nothing.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { appendItems, itemFixture, items } from './job-queue-fixtures.js';

let box: Sandbox;

beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

function entry(jobs: Array<{ id: string; ended_ms: number | null; exit_code: number | null }>) {
  const now = Date.now();
  return {
    version: 1,
    id: 'netcup',
    target: 'netcup',
    attempt_ms: now,
    read_ms: now,
    unreachable: null,
    failures: 0,
    retry_at_ms: null,
    reply: {
      now_ms: now,
      host: {
        hostname: 'netcup',
        service: 'up',
        sample_ms: now,
        probe: null,
        headroom: {
          free_cores: null,
          measured: null,
          declared: null,
          eligible: false,
          reason: [],
          reservations: 0,
          live_agents: 0,
          active_agents: 0,
        },
        reservations: [],
        errors: [],
      },
      jobs: jobs.map((job) => ({
        command: ['make', 'test'],
        cwd: '/tmp',
        host: 'local',
        owner: 'w1:p1',
        pane: 'w3:p1',
        created_ms: now - 1_000,
        started_ms: now - 900,
        signal: null,
        reason: null,
        ...job,
      })),
    },
  };
}

describe('items of jobs on peers', () => {
  it('stay open while the peer runs the job, and close once its cached snapshot shows the end', async () => {
    await appendItems(box, [
      itemFixture({
        id: 'i_remote1',
        host: 'netcup',
        job: 'j_remote1',
        pane: 'w3:p1',
        terminal_id: 'term_1',
      }),
    ]);
    const peers = join(box.state, 'peers');
    await mkdir(peers, { recursive: true });
    await writeFile(
      join(peers, 'netcup.json'),
      JSON.stringify(entry([{ id: 'j_remote1', ended_ms: null, exit_code: null }])),
    );
    const once = await runCli(['serve', '--once'], box.env);
    expect(once.code, once.stderr).toBe(0);
    expect((await items(box))[0]).toMatchObject({ closed_ms: null });
    await writeFile(
      join(peers, 'netcup.json'),
      JSON.stringify(entry([{ id: 'j_remote1', ended_ms: Date.now(), exit_code: 0 }])),
    );
    expect((await runCli(['serve', '--once'], box.env)).code).toBe(0);
    await waitFor(
      "the remote job's item closed",
      async () => ((await items(box))[0]?.closed_ms != null ? true : undefined),
      { timeoutMs: 5_000 },
    );
    expect((await items(box))[0]?.close_reason).toBe('job ended (exit 0)');
  });

  it('stay open when the peer cache entry is a directory or not JSON', async () => {
    await appendItems(box, [itemFixture({ id: 'i_remote2', host: 'netcup', job: 'j_remote2' })]);
    const peers = join(box.state, 'peers');
    await mkdir(join(peers, 'netcup.json'), { recursive: true });
    const once = await runCli(['serve', '--once'], box.env);
    expect(once.code, once.stderr).toBe(0);
    expect((await items(box))[0]).toMatchObject({ closed_ms: null });
  });
});
