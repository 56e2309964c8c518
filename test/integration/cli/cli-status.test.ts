import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../service/hosts/view-schemas.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';

const NOW = 1_900_000_000_000;
let box: Sandbox;
let env: NodeJS.ProcessEnv;
let lock: ServiceLock | undefined;

beforeEach(async () => {
  box = await sandbox();
  env = { ...box.env, DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW) };
});

afterEach(async () => {
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

async function status(args: string[], extra: NodeJS.ProcessEnv = {}) {
  return runCli(['status', ...args], { ...env, ...extra });
}

describe('status without any snapshot', () => {
  it('says so in every form and exits 0', async () => {
    const human = await status([]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('service down · no snapshot');
    expect(human.stdout).toContain('run `dogsled serve`');
    expect((await status(['--line'])).stdout).toBe('local ?\n');
    const json = StatusReportSchema.parse(JSON.parse((await status(['--json'])).stdout));
    expect(json.hosts).toHaveLength(1);
    expect(json.hosts[0]).toMatchObject({ id: 'local', service: 'down', probe: null, sample_ms: null });
    expect(json.hosts[0]?.headroom.eligible).toBe(false);
    const brief = (await status(['--brief'])).stdout.trimEnd().split('\n');
    expect(brief).toEqual(['local ? (no snapshot)', 'details: dogsled status']);
  });
});

describe('status of a published host', () => {
  it('shows busy cores over cores, memory, disk and an eligible verdict while the service runs', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 2_000, cores: 8, busy: 0.25 }));
    lock = await holdServiceLock(box.state);
    expect((await status(['--line'])).stdout).toBe('local 2/8\n');
    const human = (await status([])).stdout;
    expect(human).toContain('service up · sampled 2s ago');
    expect(human).toContain('2.0 of 8 cores busy');
    expect(human).toContain('16.0 GiB used of 64.0 GiB · 48.0 GiB free');
    expect(human).toContain('6.0 free cores · eligible');
    for (const line of human.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    const report = StatusReportSchema.parse(JSON.parse((await status(['--json'])).stdout));
    expect(report.now_ms).toBe(NOW);
    expect(report.hosts[0]).toMatchObject({ service: 'up', age_ms: 2_000, reachable: true, retry_ms: null });
    expect(report.hosts[0]?.headroom).toMatchObject({
      eligible: true,
      free_cores: 6,
      measured: 6,
      declared: 8,
    });
    const brief = (await status(['--brief'])).stdout.trimEnd().split('\n');
    expect(brief.length).toBeLessThanOrEqual(6);
    expect(brief[0]).toBe(
      'local 2/8 · mem 48.0 GiB free of 64.0 GiB · disk 50% free · agents 0 live, 0 active',
    );
  });

  it('marks a stale snapshot from a running service with ▲ and says why', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 31_000, busy: 0.25 }));
    lock = await holdServiceLock(box.state);
    expect((await status(['--line'])).stdout).toBe('local 2/8 ▲\n');
    const report = StatusReportSchema.parse(JSON.parse((await status(['--json'])).stdout));
    expect(report.hosts[0]?.headroom.reason).toEqual(['stale: snapshot is 31s old, admission needs 30s']);
  });

  it('keeps the numbers of a host whose service is down and marks them with ?', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 1_000, busy: 0.5 }));
    expect((await status(['--line'])).stdout).toBe('local 4/8 ?\n');
    expect((await status([])).stdout).toContain('service down: no process holds the service lock');
  });

  it('shows load over cores before the first CPU sample', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 1_000, busy: null }));
    lock = await holdServiceLock(box.state);
    expect((await status(['--line'])).stdout).toBe('local load 0.5/8 ▲\n');
  });

  it('quarantines a corrupt host.json with one warning and still answers', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW }));
    await writeFile(join(box.state, 'host.json'), '{"version": 1, "host": ');
    const result = await status(['--line']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('local ?\n');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/warning: .*host\.json.*moved to .*host\.json\.bad-\d+/);
    expect((await readdir(box.state)).filter((f) => f.startsWith('host.json.bad-'))).toHaveLength(1);
    expect((await status(['--line'])).stderr).toBe('');
  });
});

describe('status flags', () => {
  it('refuses two output forms at once', async () => {
    const result = await status(['--json', '--line']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('dogsled: status: choose one of --json, --line and --brief\n');
  });

  it('refuses a bad --interval', async () => {
    const result = await status(['--watch', '--interval', 'soon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--interval: expected a positive number of seconds, got "soon"');
  });

  it('refuses --interval without --watch, which would ignore it', async () => {
    const result = await status(['--interval', '2']);
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'dogsled: status: --interval needs --watch\n',
    });
  });

  it('reports an unknown flag through the full command line', async () => {
    const result = await status(['--lines']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: status: unknown option '--lines'/);
  });

  it('--watch refreshes at its interval until interrupted, then exits 0', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: NOW - 1_000 }));
    const child = startCli(['status', '--watch', '--line', '--interval', '0.1'], env);
    await waitFor('three refreshes', () => child.output().trimEnd().split('\n').length >= 3);
    child.kill('SIGINT');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    const refreshes = child.output().trimEnd().split('\n');
    expect(refreshes.length).toBeGreaterThanOrEqual(3);
    expect(new Set(refreshes)).toEqual(new Set(['local 0/8 ?']));
  });
});
