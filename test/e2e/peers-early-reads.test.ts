// A command's early peer reads (service/hosts/peer-prefetch.ts) over real sshd peers, no service on
// the caller: a due entry (none, or past the 10 s spacing) is read once, under the entry's lock, and
// written as the reader writes it; an entry backing off is not read. A caller frozen inside its
// early read (its peer's sshd frozen too) holds the lock: another caller starts nothing, waits
// within its budget and answers with the entry as it stands; the frozen one, thawed, writes the one
// read. An entry that is a directory or a FIFO starts nothing early, and the command still answers.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../service/hosts/view-schemas.js';
import { exited, runCli, startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { acceptedConnections, type Fleet, startFleet, untilPeersEligible } from './peers/fleet.js';
import { peerSupport } from './peers/index.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`peers-early-reads: skipped: ${unsupported}`);

describe.skipIf(unsupported)('early peer reads', () => {
  let fleet: Fleet;
  const peersDir = () => join(fleet.box.state, 'peers');
  const entryFile = (id: string) => join(peersDir(), `${id}.json`);
  const coldCache = () => rm(peersDir(), { recursive: true, force: true });
  const accepted = () => Promise.all(['one', 'two'].map((tag) => acceptedConnections(fleet.peers, tag)));

  async function status(extra: NodeJS.ProcessEnv = {}) {
    const result = await runCli(['status', '--json'], { ...fleet.env, ...extra }, { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    return { report: StatusReportSchema.parse(JSON.parse(result.stdout)), stderr: result.stderr };
  }
  const host = (report: Awaited<ReturnType<typeof status>>['report'], id: string) => {
    const found = report.hosts.find((h) => h.id === id);
    if (!found) throw new Error(`no host ${id}`);
    return found;
  };

  beforeAll(async () => {
    // Only read: no case waits on a tick of theirs.
    fleet = await startFleet([
      { tag: 'one', cores: 4, interval: '5' },
      { tag: 'two', cores: 8, interval: '5' },
    ]);
    await untilPeersEligible(fleet);
  });

  afterAll(async () => {
    await fleet?.stop();
  });

  it('reads a due entry once and writes it as the reader does; an entry backing off is not read', async () => {
    await coldCache();
    const before = await accepted();
    const { report } = await status();
    expect(host(report, 'one')).toMatchObject({ reachable: true, service: 'up' });
    expect(host(report, 'two')).toMatchObject({ reachable: true, service: 'up' });
    expect((await accepted()).map((n, i) => n - (before[i] ?? 0))).toEqual([1, 1]);
    expect(existsSync(`${entryFile('one')}.lock`)).toBe(false);
    const written = JSON.parse(await readFile(entryFile('one'), 'utf8'));
    expect(written).toMatchObject({ version: 1, id: 'one', target: 'one', unreachable: null, failures: 0 });
    expect(written.reply.host.service).toBe('up');

    // Past the spacing: read again, early. In its backoff: not read at all.
    const now = Date.now();
    await writeFile(
      entryFile('one'),
      JSON.stringify({ ...written, attempt_ms: now - 20_000, read_ms: now - 20_000 }),
    );
    const two = JSON.parse(await readFile(entryFile('two'), 'utf8'));
    await writeFile(
      entryFile('two'),
      JSON.stringify({
        ...two,
        attempt_ms: now - 20_000,
        unreachable: 'timeout',
        failures: 2,
        retry_at_ms: now + 60_000,
      }),
    );
    const mid = await accepted();
    const again = await status();
    expect((await accepted()).map((n, i) => n - (mid[i] ?? 0))).toEqual([1, 0]);
    expect(host(again.report, 'one')).toMatchObject({ reachable: true });
    expect(host(again.report, 'two')).toMatchObject({ reachable: false, unreachable: 'timeout' });
    expect(JSON.parse(await readFile(entryFile('one'), 'utf8')).attempt_ms).toBeGreaterThanOrEqual(now);
  });

  it('holds the lock while frozen mid-read: another caller starts nothing and answers within its budget', async () => {
    await coldCache();
    const sshd = fleet.peers.peer('one').sshd;
    const before = await accepted();
    await sshd.freeze();
    const first = startCli(['status', '--json'], { ...fleet.env, DOGSLED_TEST_PEER_BUDGET_MS: '40000' });
    try {
      // Its early read of `one` is under way (the lock taken, ssh waiting on the frozen sshd).
      await waitFor('the early read of one under its lock', () => existsSync(`${entryFile('one')}.lock`), {
        timeoutMs: 30_000,
      });
      process.kill(first.pid as number, 'SIGSTOP');
      const second = await status({ DOGSLED_TEST_PEER_BUDGET_MS: '3000' });
      // Nothing read by this caller: `one` as its entry stands (none yet), the lock still the frozen one's.
      expect(host(second.report, 'one').reachable).toBe(false);
      expect(existsSync(`${entryFile('one')}.lock`)).toBe(true);
    } finally {
      await sshd.thaw();
      if (first.pid) process.kill(first.pid, 'SIGCONT');
      await exited(first);
    }
    const done = await exited(first);
    const output = first.output();
    expect(done.code, output).toBe(0);
    const json = output.split('\n').find((line) => line.startsWith('{')) ?? '';
    expect(host(StatusReportSchema.parse(JSON.parse(json)), 'one')).toMatchObject({
      reachable: true,
      service: 'up',
    });
    // One read of `one` in all: the frozen caller's.
    expect(((await accepted())[0] ?? 0) - (before[0] ?? 0)).toBe(1);
    expect(existsSync(`${entryFile('one')}.lock`)).toBe(false);
  });

  it.each([
    ['a directory', (path: string) => mkdir(path)],
    ['a FIFO', async (path: string) => void execFileSync('mkfifo', [path])],
  ])('starts nothing early for an entry that is %s, and the command still answers', async (_, make) => {
    await coldCache();
    await mkdir(peersDir(), { recursive: true, mode: 0o700 });
    await make(entryFile('one'));
    const before = await accepted();
    const { report } = await status({ DOGSLED_TEST_PEER_BUDGET_MS: '3000' });
    expect(host(report, 'two')).toMatchObject({ reachable: true });
    expect(host(report, 'one').id).toBe('one');
    // `two` was read (early); `one` at most once, by the reader, whatever it made of the file.
    const after = await accepted();
    expect((after[1] ?? 0) - (before[1] ?? 0)).toBe(1);
    expect((after[0] ?? 0) - (before[0] ?? 0)).toBeLessThanOrEqual(1);
    expect(existsSync(`${entryFile('one')}.lock`)).toBe(false);
    await rm(entryFile('one'), { recursive: true, force: true });
  });
});
