// The watchdog inside a real `serve`: a watchdog.json it cannot read costs nothing but its own lane
// (host.json keeps coming, with the error in `errors`), and a serve frozen with SIGSTOP inside the
// watchdog lock blocks no reader, is not taken over, and finishes its write once resumed.

import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectLock } from '../../../service/state/engine/lock.js';
import { HostSnapshotSchema } from '../../../service/state/schemas/host-schemas.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { lockUnrefreshedFor } from '../../helpers/frozen-lock.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
const running: Array<ReturnType<typeof startCli>> = [];

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited(child);
  }
  await box.cleanup();
});

function serve(env: NodeJS.ProcessEnv = box.env) {
  const child = startCli(['serve', '--interval', '0.5'], env);
  running.push(child);
  return child;
}

async function snapshot() {
  return HostSnapshotSchema.parse(JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8')));
}

describe('the watchdog in serve', () => {
  it('publishes the watchdog failure in host.json errors and keeps publishing while watchdog.json is a directory', async () => {
    await mkdir(join(box.state, 'watchdog.json'), { recursive: true });
    const child = serve();
    const first = await waitFor(
      'the watchdog error in host.json',
      async () => {
        const s = await snapshot();
        return s.errors.some((e) => e.includes('watchdog.json is a directory')) ? s : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(first.errors).toContain('watchdog: watchdog.json is a directory, not a regular file');
    const later = await waitFor(
      'a later snapshot',
      async () => ((await snapshot()).sample_ms > first.sample_ms ? true : undefined),
      { timeoutMs: 20_000 },
    );
    expect(later).toBe(true);
    expect(child.output()).toContain('dogsled serve: watchdog: watchdog.json is a directory');
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
    await rm(join(box.state, 'watchdog.json'), { recursive: true });
  });

  it('a serve frozen inside the watchdog lock blocks no reader, is not taken over, and writes once resumed', async () => {
    const env = {
      ...box.env,
      DOGSLED_TEST: '1',
      DOGSLED_TEST_LOCK_STALE_MS: '1000',
      DOGSLED_TEST_LOCK_HOLD_FILE: 'watchdog.json',
      DOGSLED_TEST_LOCK_HOLD_MS: '3000',
    };
    const child = serve(env);
    const file = join(box.state, 'watchdog.json');
    await waitFor(
      'serve inside the watchdog lock',
      async () => ((await inspectLock(file))?.owner?.pid === child.pid ? true : undefined),
      { timeoutMs: 20_000 },
    );
    child.kill('SIGSTOP');
    // Frozen well past the stale window: readers answer, a second serve names the holder.
    await lockUnrefreshedFor(file, 2 * 1_000);
    const status = await runCli(['status', '--json'], box.env);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).hosts[0].service).toBe('up');
    const second = await runCli(['serve', '--once'], box.env);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/already running on this host \(pid \d+/);
    expect((await inspectLock(file))?.owner?.pid).toBe(child.pid);
    child.kill('SIGCONT');
    const written = await waitFor(
      'watchdog.json written by the resumed serve',
      async () => JSON.parse(await readFile(file, 'utf8')),
      { timeoutMs: 20_000 },
    );
    expect(written).toMatchObject({ version: 1, owners: {}, events: {}, notified: {} });
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
  });
});
