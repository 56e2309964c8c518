// A running `serve` whose state files turn hostile under it (a directory or FIFO in their place):
// it keeps publishing with the error in `errors`, never dies and never blocks, and recovers by
// itself once the file is fixed.

import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HostSnapshot } from '../../../service/core/placement/host-types.js';
import { HostSnapshotSchema } from '../../../service/state/schemas/host-schemas.js';
import { exited, type Sandbox } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';
import { sandboxPerTest } from '../../helpers/serve-sandbox.js';
import { waitFor } from '../../helpers/wait.js';
import { roomFor5, startServe, writeJobs } from '../jobs/job-queue-fixtures.js';

let box: Sandbox;
const served = sandboxPerTest((made) => {
  box = made;
});
const { running } = served;

async function snapshot(): Promise<HostSnapshot> {
  return HostSnapshotSchema.parse(JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8')));
}

/** Waits for a snapshot published after `after` that satisfies `check`. */
async function published(after: number, check: (s: HostSnapshot) => boolean, what: string) {
  return waitFor(
    what,
    async () => {
      const s = await snapshot();
      return s.sample_ms > after && check(s) ? s : undefined;
    },
    { timeoutMs: 15_000 },
  );
}

async function serving() {
  const room = await roomFor5(box, 90_000, { facts: false });
  served.stopTicker = room.stop;
  const child = startServe(room.env, running);
  const first = await published(0, () => true, 'a first snapshot');
  return { child, first };
}

const mentions = (file: string) => (s: HostSnapshot) =>
  s.errors.some((e) => e.includes(join(box.state, file)));

describe('serve with a hostile state file', () => {
  it('placements.json a directory: keeps publishing with the error, and drops it once fixed', async () => {
    const { child, first } = await serving();
    await mkdir(join(box.state, 'placements.json'));
    const broken = await published(first.sample_ms, mentions('placements.json'), 'the error in errors');
    expect(broken.errors.find((e) => e.includes('placements.json'))).toMatch(/it is a directory/);
    await rmdir(join(box.state, 'placements.json'));
    await published(broken.sample_ms, (s) => !mentions('placements.json')(s), 'recovery');
    expect(child.exitCode).toBeNull();
  });

  it('samples.jsonl a FIFO: never blocks, reports it, and appends again once fixed', async () => {
    const { child, first } = await serving();
    const samples = join(box.state, 'samples.jsonl');
    // Renamed into place: the service, appending meanwhile, never sees the name missing.
    execFileSync('mkfifo', [`${samples}.fifo`]);
    await rename(`${samples}.fifo`, samples);
    const broken = await published(first.sample_ms, mentions('samples.jsonl'), 'the error in errors');
    await rm(samples);
    const fixed = await published(broken.sample_ms, (s) => !mentions('samples.jsonl')(s), 'recovery');
    expect((await stat(samples)).isFile()).toBe(true);
    expect(fixed.errors).toEqual([]);
    expect(child.exitCode).toBeNull();
  });

  it('host.json a directory: stays up, says so once on stderr, and publishes again once fixed', async () => {
    const { child, first } = await serving();
    await rm(join(box.state, 'host.json'));
    await mkdir(join(box.state, 'host.json'));
    await waitFor(
      'the warning',
      async () =>
        child.output().includes(`cannot write ${join(box.state, 'host.json')}`) ? true : undefined,
      { timeoutMs: 15_000 },
    );
    await rmdir(join(box.state, 'host.json'));
    await published(first.sample_ms, () => true, 'host.json again');
    const warnings = child
      .output()
      .split('\n')
      .filter((l) => l.includes('cannot write'));
    expect(warnings).toHaveLength(1);
    // The line follows the write; it reaches the pipe a moment after the file is there.
    await waitFor(
      'the recovery line',
      async () => (child.output().includes('written again') ? true : undefined),
      {
        timeoutMs: 15_000,
      },
    );
    expect(child.exitCode).toBeNull();
  });

  it('queue.json and a job record as FIFOs: publication goes on without blocking', async () => {
    const { child, first } = await serving();
    await writeJobs(box, [jobFixture({ id: 'j_okjob0000001' })]);
    execFileSync('mkfifo', [join(box.state, 'queue.json')]);
    execFileSync('mkfifo', [join(box.state, 'jobs', 'j_fifo00000001.json')]);
    const later = await published(
      first.sample_ms,
      (s) => (s.jobs ?? []).some((j) => j.id === 'j_okjob0000001'),
      'a snapshot listing the readable job',
    );
    await published(later.sample_ms, () => true, 'another tick');
    expect(child.output()).toContain(
      `dogsled serve: admission: cannot read ${join(box.state, 'queue.json')}`,
    );
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });
});
