// The lean `host snapshot` (cli/hot/host-lean.ts, actions/snapshot-glance.ts), which every peer read
// of a caller without a service runs here through a fresh ssh: this host's service up, its files
// read by hand. Each case runs the built CLI and, on the same state (restored in between), the full
// command line (dist/full.mjs's runFull, what main.ts runs when the lean bundle does not answer):
// exit status, stdout, stderr and every state file afterwards must be the same, byte for byte, and
// DOGSLED_TIMING's marks say whether the lean bundle answered. The cases it must not answer (the
// service down, a host.json or a job in doubt, another verb) are shown to fall back.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { CLI, ROOT, runNode, type Sandbox, sandbox, timingSplit } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { agentPaneFixture, snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { restoreState, stateFiles, stateTexts } from '../../helpers/state-files.js';

const NOW = 1_900_000_000_000;
const FULL = pathToFileURL(join(ROOT, 'dist', 'full.mjs')).href;
const ESC = '\x1b]0;owned\x07\x1b[31m';

let box: Sandbox;
let lock: ServiceLock | undefined;

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...box.env,
  DOGSLED_TEST: '1',
  DOGSLED_TEST_NOW_MS: String(NOW),
  ...extra,
});

const FULL_SCRIPT = `const m = await import(process.argv[1]);
try { process.exitCode = await m.runFull(JSON.parse(process.argv[2]), undefined); }
catch (error) { process.exitCode = await m.reportFailure(error); }`;

async function spawned(argv: string[], extra: NodeJS.ProcessEnv) {
  const { code, stdout, stderr } = await runNode(argv, env(extra), { cwd: box.home, timeoutMs: 60_000 });
  const answered = /^timing .* answered$/m.test(stderr);
  return { code, stdout, ...timingSplit(stderr), answered, files: await stateTexts(box.state) };
}

/** Both on the same state; the CLI's run, once it matches the full command line's. */
async function compare(words: string[]) {
  const before = await stateFiles(box.state);
  const full = await spawned(
    ['--input-type=module', '-e', FULL_SCRIPT, FULL, JSON.stringify(['host', ...words])],
    {},
  );
  await restoreState(box.state, before);
  const lean = await spawned([CLI, 'host', ...words], { DOGSLED_TIMING: '1' });
  expect({ code: lean.code, stdout: lean.stdout, stderr: lean.stderr, files: lean.files }).toEqual({
    code: full.code,
    stdout: full.stdout,
    stderr: full.stderr,
    files: full.files,
  });
  return lean;
}

const job = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  command: ['sh', '-c', `echo ${ESC}`],
  cwd: `/tmp/${ESC}`,
  host: 'local',
  owner: null,
  pane: null,
  created_ms: NOW - 60_000,
  started_ms: NOW - 59_000,
  ended_ms: null,
  exit_code: null,
  signal: null,
  reason: null,
  ...extra,
});

async function snapshotWith(jobs: unknown[] | undefined) {
  const snapshot = snapshotFixture({ sample_ms: NOW - 2_000, cores: 8, busy: 0.25 });
  snapshot.probe.agent_panes = [agentPaneFixture('w1:p2', 'working', NOW - 400_000)];
  await writeSnapshot(box.state, { ...snapshot, ...(jobs === undefined ? {} : { jobs }) } as typeof snapshot);
}

describe('host snapshot, lean, with the service up', () => {
  it('answers as the full verb does: the view, reservations and the jobs host.json lists', async () => {
    await snapshotWith([
      job('j-1'),
      job('j-2', { ended_ms: NOW - 1_000, exit_code: 0, peak_rss_bytes: 1_048_576, cpu_ms: 12.5 }),
    ]);
    await writeFile(
      join(box.state, 'placements.json'),
      JSON.stringify({
        version: 1,
        reservations: [
          { id: 'r-1', created_ms: NOW - 1_000, expires_ms: NOW + 60_000, owner: null, cores: 2 },
        ],
      }),
    );
    lock = await holdServiceLock(box.state);
    const lean = await compare(['snapshot']);
    expect(lean).toMatchObject({ code: 0, answered: true, bundles: ['host-lean'] });
    const reply = JSON.parse(lean.stdout);
    expect(reply).toMatchObject({ version: 1, now_ms: NOW, host: { service: 'up' } });
    expect(reply.jobs.map((j: { id: string }) => j.id)).toEqual(['j-1', 'j-2']);
  });

  it('answers a host.json without jobs', async () => {
    await snapshotWith(undefined);
    lock = await holdServiceLock(box.state);
    expect(await compare(['snapshot'])).toMatchObject({ code: 0, answered: true });
  });

  it('leaves the service down, a job in doubt, a host.json in doubt or missing to the full verb', async () => {
    await snapshotWith([job('j-1')]);
    expect(await compare(['snapshot'])).toMatchObject({ code: 0, answered: false });
    lock = await holdServiceLock(box.state);
    for (const bad of [job('j-1', { command: [] }), job('j-1', { created_ms: 1.5 }), job('', {}), 'j-1']) {
      await snapshotWith([bad]);
      expect(await compare(['snapshot'])).toMatchObject({ answered: false });
    }
    await writeFile(join(box.state, 'host.json'), '{"version": 1');
    expect(await compare(['snapshot'])).toMatchObject({ answered: false });
    await writeFile(join(box.state, 'host.json'), '{}');
    expect(await compare(['snapshot'])).toMatchObject({ answered: false });
  });

  it('runs no lean bundle for another verb, or arguments', async () => {
    await snapshotWith([]);
    lock = await holdServiceLock(box.state);
    expect((await compare(['snapshot', 'extra'])).bundles).toEqual([]);
    expect((await compare(['echo', 'hi'])).bundles).toEqual([]);
  });
});
