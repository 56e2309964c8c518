// A job pane's wrapper (`exec ID`) hands its job to the supervisor `serve` keeps warm
// (service/jobs/supervisor/exec-handoff.ts, exec-warm.ts) instead of starting a second Node: the
// warm one runs the job with the wrapper's environment (the pane's variables, escapes and newlines
// included) and its warnings show on the wrapper's stderr; the wrapper stays the pane's foreground
// process (shows the log, passes SIGTERM and SIGINT on, exits with the job's status); a closed pane
// leaves the job running. Every failure to hand it over (a frozen warm supervisor, a directory,
// FIFO or stale socket in its place, hostile claims) falls back to a supervisor of the wrapper's
// own, with the job run once. One real service for the whole file; the tests run in order.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellLine } from '../../../service/core/common/shell-quote.js';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { paneClaimLine } from '../../../service/core/jobs/warm-handoff-lines.js';
import { type StatePaths, statePaths } from '../../../service/state/paths.js';
import { jobLogPath, readJobRecord, writeJobRecord } from '../../../service/state/records/job-records.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { CLI, exited, type Sandbox, type startCli } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';
import { waitFor } from '../../helpers/wait.js';
import {
  claimLine as claimLineOf,
  theWarmOne as theWarmOneOf,
  warmPids as warmPidsOf,
} from '../../helpers/warm-supervisor.js';
import { type RoomyService, startRoomyService, stopRoomyService } from './job-queue-fixtures.js';

let box: Sandbox;
let paths: StatePaths;
let work: string;
let env: NodeJS.ProcessEnv;
let serve: ReturnType<typeof startCli>;
let serial = 0;

let service: RoomyService | undefined;

beforeAll(async () => {
  service = await startRoomyService();
  ({ box, work, env, serve } = service);
  paths = statePaths(box.state);
});

afterAll(() => stopRoomyService(service));

const sock = () => join(box.state, 'supervisor.sock');
const warmPids = () => warmPidsOf(box.state);
const theWarmOne = (not?: number) => theWarmOneOf(box.state, not);

/** A created record, as a pane's launch writes it (no saved environment: the job gets the wrapper's). */
async function newJob(command: string[]): Promise<JobRecord> {
  const record = jobFixture({ id: `j_handoff${++serial}`, command, cwd: work, owner: null });
  await writeJobRecord(paths, record);
  return record;
}

/** The wrapper as a pane runs it: `exec ID`, its stdout and stderr kept. */
function wrapper(
  job: JobRecord,
  extraEnv: NodeJS.ProcessEnv = {},
): ChildProcess & { out: () => string; err: () => string; drained: () => Promise<void> } {
  const child = spawn(process.execPath, [CLI, 'exec', job.id], {
    env: { ...env, ...extraEnv },
    cwd: work,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const closed = Promise.all(
    [child.stdout, child.stderr].map((pipe) => new Promise((resolve) => pipe?.once('close', resolve))),
  );
  // 'exit' can come before the last bytes of its pipes are read: what it wrote is all there once
  // they have closed (every writer gone), or after 5 s when a supervisor it started holds them.
  const drained = async () => {
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  };
  return Object.assign(child, { out: () => out, err: () => err, drained });
}

/** A wrapper's end, with everything it printed read. */
async function finished(child: ReturnType<typeof wrapper>): ReturnType<typeof exited> {
  const done = await exited(child);
  await child.drained();
  return done;
}

function ended(job: JobRecord, timeoutMs = 20_000): Promise<JobRecord> {
  return waitFor(
    `job ${job.id} ended`,
    async () => {
      const record = await readJobRecord(paths, job.id);
      return record.ended_ms === null ? undefined : record;
    },
    { timeoutMs },
  );
}

function running(job: JobRecord): Promise<JobRecord> {
  return waitFor(
    `job ${job.id} running`,
    async () => {
      const record = await readJobRecord(paths, job.id);
      return typeof record.pgid === 'number' ? record : undefined;
    },
    { timeoutMs: 20_000 },
  );
}

const claimLine = (line: string) => claimLineOf(box.state, line);

describe('exec ID in a pane with the service running', () => {
  it('hands the job to the warm supervisor: no second Node, the pane variables carried, status and output kept', async () => {
    const warm = await theWarmOne();
    // Escapes, quotes, a newline and non-ASCII in a variable only the pane has: they reach the job as they are.
    const hostile = 'a\nb\u001b]0;title\u0007 "q" \'s\' $(x) ünï';
    const job = await newJob(['sh', '-c', 'printf "%s|%s" "$PANE_ONLY" "$PWD"; exit 3']);
    const child = wrapper(job, { PANE_ONLY: hostile });
    const done = await finished(child);
    expect(done.code, child.err()).toBe(3);
    const record = await readJobRecord(paths, job.id);
    expect(record).toMatchObject({ exit_code: 3, signal: null, reason: null, wrapper_pid: warm });
    expect(await readFile(jobLogPath(paths, job.id), 'utf8')).toBe(`${hostile}|${work}`);
    expect(child.out()).toBe(`${hostile}|${work}`);
    expect(child.err()).toBe('');
    // The service starts the next one.
    await theWarmOne(warm);
  });

  it("shows the supervisor's warnings on the wrapper's stderr, one escape-free line", async () => {
    await theWarmOne();
    // A pane variable set and no Herdr to reach: the supervisor says so once, at the end.
    const job = await newJob(['sh', '-c', 'exit 0']);
    const child = wrapper(job, {
      HERDR_ENV: '1',
      HERDR_PANE_ID: 'w1:p\u001b[31m9',
      HERDR_SOCKET_PATH: join(box.root, 'no-herdr.sock'),
    });
    expect((await finished(child)).code).toBe(0);
    const err = child.err();
    const lines = err.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^dogsled: exec: job ${job.id}: herdr pane w1:p9: `));
    expect(err).not.toContain('\u001b');
  });

  it('passes SIGTERM and SIGINT on: the job ends wrapper terminated and the wrapper exits with its status', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const warm = await theWarmOne();
      const job = await newJob(['sleep', '30']);
      const child = wrapper(job);
      const record = await running(job);
      expect(record.wrapper_pid).toBe(warm);
      child.kill(signal);
      const done = await exited(child);
      expect(done).toEqual({ code: 143, signal: null });
      expect(await readJobRecord(paths, job.id)).toMatchObject({
        exit_code: null,
        signal: 'SIGTERM',
        reason: 'wrapper terminated',
      });
      expect(() => process.kill(-(record.pgid as number), 0)).toThrow();
    }
  });

  it('keeps the job running when the pane goes (the wrapper killed): whole log, exit code kept', async () => {
    await theWarmOne();
    const release = join(box.root, 'release-pane-gone');
    const job = await newJob([
      'sh',
      '-c',
      `echo first; i=0; while [ ! -e ${release} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; echo second; exit 5`,
    ]);
    const child = wrapper(job);
    await waitFor('first line shown', () => (child.out() === 'first\n' ? true : undefined), {
      timeoutMs: 20_000,
    });
    child.kill('SIGKILL');
    await exited(child);
    await writeFile(release, '');
    expect(await ended(job)).toMatchObject({ exit_code: 5, signal: null, reason: null });
    expect(await readFile(jobLogPath(paths, job.id), 'utf8')).toBe('first\nsecond\n');
  });

  it('exits 125 with one line when the warm supervisor it was handed to dies mid-job, and the job ends wrapper lost', async () => {
    const warm = await theWarmOne();
    const job = await newJob(['sleep', '30']);
    const child = wrapper(job);
    const record = await running(job);
    expect(record.wrapper_pid).toBe(warm);
    process.kill(warm, 'SIGKILL');
    const done = await finished(child);
    expect(done.code).toBe(125);
    expect(child.err()).toMatch(
      new RegExp(
        `^dogsled: .*job ${job.id}: the warm exec supervisor \\(pid ${warm}\\) it was handed to went away before the job ended\\n$`,
      ),
    );
    expect(await ended(job)).toMatchObject({ reason: 'wrapper lost' });
    await waitFor('its group gone', () => {
      try {
        process.kill(-(record.pgid as number), 0);
        return undefined;
      } catch {
        return true;
      }
    });
  });

  it('refuses hostile pane claims and keeps listening', async () => {
    const warm = await theWarmOne();
    const job = await newJob(['true']);
    const claims = [
      'pane {}\n',
      'pane not json\n',
      `pane ${JSON.stringify({ id: '../../etc', command: null, env: {} })}\n`,
      `pane ${JSON.stringify({ id: job.id, command: 'true', env: {} })}\n`,
      `pane ${JSON.stringify({ id: job.id, command: null, env: { 'A=B': 'x' } })}\n`,
      `pane ${JSON.stringify({ id: job.id, command: null, env: { A: 'x\u0000y' } })}\n`,
      `pane ${JSON.stringify({ id: job.id, command: null, env: { A: 1 } })}\n`,
    ];
    for (const line of claims) expect(await claimLine(line), line).toBe('refused\n');
    expect(await theWarmOne()).toBe(warm);
    expect(await readJobRecord(paths, job.id)).toMatchObject({ started_ms: null, ended_ms: null });
    // A claim past the bound without a newline is dropped, not read for ever.
    expect(await claimLine(`pane {"id":"${job.id}","env":{"A":"${'x'.repeat(1024 * 1024 + 10)}`)).toBe(
      'refused\n',
    );
    expect(await theWarmOne()).toBe(warm);
  });

  it('never claims a job whose wrapper went before saying go: one that gave up has started its own', async () => {
    const warm = await theWarmOne();
    const job = await newJob(['sh', '-c', 'echo ran']);
    // A wrapper that stopped waiting (its 2 s ran out while this supervisor stalled) closes the
    // connection and starts a supervisor of its own: the warm one hears `ready` unanswered.
    const heard = await new Promise<string>((resolve, reject) => {
      const socket = connect(sock());
      let text = '';
      socket.setEncoding('utf8');
      socket.on('connect', () =>
        socket.write(paneClaimLine({ id: job.id, command: null, env: { HOME: box.home } })),
      );
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('\n')) socket.destroy();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(heard).toBe('ready\n');
    await waitFor('it gone', async () => ((await warmPids()).includes(warm) ? undefined : true), {
      timeoutMs: 20_000,
    });
    expect(await readJobRecord(paths, job.id)).toMatchObject({
      started_ms: null,
      ended_ms: null,
    });
    await expect(stat(jobLogPath(paths, job.id))).rejects.toThrow(/ENOENT/);
    await theWarmOne(warm);
  });

  it('falls back within the wait when the warm supervisor is frozen, and the resumed one does not run the job again', async () => {
    const warm = await theWarmOne();
    process.kill(warm, 'SIGSTOP');
    try {
      const job = await newJob(['sh', '-c', 'echo ran; exit 4']);
      const child = wrapper(job);
      const done = await finished(child);
      expect(done.code, child.err()).toBe(4);
      expect(child.out()).toBe('ran\n');
      const record = await readJobRecord(paths, job.id);
      expect(record.wrapper_pid).not.toBe(warm);
      const before = await readFile(join(box.state, 'jobs', `${job.id}.json`), 'utf8');
      // The wrapper that gave up on it removed its socket: the next one does not wait on it too.
      await expect(stat(sock())).rejects.toThrow(/ENOENT/);
      process.kill(warm, 'SIGCONT');
      await waitFor('it gone', async () => ((await warmPids()).includes(warm) ? undefined : true), {
        timeoutMs: 20_000,
      });
      expect(await readFile(join(box.state, 'jobs', `${job.id}.json`), 'utf8')).toBe(before);
      expect(await readFile(jobLogPath(paths, job.id), 'utf8')).toBe('ran\n');
    } finally {
      try {
        process.kill(warm, 'SIGCONT');
      } catch {}
    }
    await theWarmOne(warm);
  });

  it('ends the job unstarted on a SIGTERM while the frozen warm supervisor has not answered', async () => {
    const warm = await theWarmOne();
    process.kill(warm, 'SIGSTOP');
    try {
      const marker = join(box.root, 'frozen-term-ran');
      const job = await newJob(['sh', '-c', `touch ${marker}`]);
      const child = wrapper(job);
      // Connected and waiting for the answer: the claim is in the socket's queue.
      await waitFor('the wrapper connected', async () => {
        // Beyond 0 to 2, which Node's spawn makes socket pairs too.
        const fds = (await readdir(`/proc/${child.pid}/fd`)).filter((fd) => Number(fd) > 2);
        const links = await Promise.all(
          fds.map((fd) => readlink(`/proc/${child.pid}/fd/${fd}`).catch(() => '')),
        );
        return links.some((link) => link.startsWith('socket:')) ? true : undefined;
      });
      child.kill('SIGTERM');
      const done = await exited(child);
      expect(done).toEqual({ code: 125, signal: null });
      expect(await readJobRecord(paths, job.id)).toMatchObject({
        started_ms: null,
        ended_ms: expect.any(Number),
        reason: 'wrapper terminated',
      });
      process.kill(warm, 'SIGCONT');
      await waitFor('it gone', async () => ((await warmPids()).includes(warm) ? undefined : true), {
        timeoutMs: 20_000,
      });
      await expect(stat(marker)).rejects.toThrow();
    } finally {
      try {
        process.kill(warm, 'SIGCONT');
      } catch {}
    }
    await theWarmOne(warm);
  });
});

describe('exec ID in a Herdr pane, handed to the warm supervisor', () => {
  let herdr: FakeHerdr;
  let workspace: string;

  async function ok(method: string, params: Record<string, unknown> = {}) {
    const reply = await herdr.call(method, params);
    if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
    return reply.result;
  }

  beforeAll(async () => {
    // Every pane gets DOGSLED_STATE, as `run` gives the job pane; the service knows no Herdr.
    herdr = await startFakeHerdr({
      dir: join(box.root, 'herdr'),
      env: { HOME: box.home, DOGSLED_STATE: box.state },
    });
    workspace = (await ok('workspace.create', { cwd: work })).workspace.workspace_id;
  });

  afterAll(async () => {
    await herdr?.stop();
  });

  it("reports the pane working then blocked with the end token and closes its tab, from the pane's own variables", async () => {
    const warm = await theWarmOne();
    const created = await ok('tab.create', { workspace_id: workspace, cwd: work });
    const tab: string = created.tab.tab_id;
    const pane: string = created.root_pane.pane_id;
    const job = await newJob(['sh', '-c', 'echo "in $HERDR_PANE_ID"; exit 3']);
    await ok('pane.send_input', {
      pane_id: pane,
      text: shellLine([process.execPath, CLI, 'exec', job.id]),
      keys: ['Enter'],
    });
    expect(await ended(job)).toMatchObject({ exit_code: 3, reason: null, wrapper_pid: warm });
    expect(await readFile(jobLogPath(paths, job.id), 'utf8')).toBe(`in ${pane}\n`);
    await waitFor(
      `tab ${tab} closed`,
      async () => {
        const tabs: Array<{ tab_id: string }> = (await ok('tab.list', { workspace_id: workspace })).tabs;
        return tabs.some((t) => t.tab_id === tab) ? undefined : true;
      },
      { timeoutMs: 10_000 },
    );
    const calls = async (method: string) =>
      ((await ok('_fake.calls.list', { method })).calls as Array<{ params: Record<string, unknown> }>)
        .map((call) => call.params)
        .filter((params) => params.pane_id === pane);
    expect((await calls('pane.report_agent')).map((r) => r.state)).toEqual(['working', 'blocked']);
    expect((await calls('pane.report_metadata')).map((r) => r.tokens)).toEqual([{ dogsled: 'exit 3' }]);
  });
});

describe('exec ID with no warm supervisor to hand it to', () => {
  it('starts its own when supervisor.sock is a directory, a FIFO or a socket nobody listens on', async () => {
    serve.kill('SIGTERM');
    await exited(serve);
    await waitFor('no warm one', async () => ((await warmPids()).length === 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
    const stale = () =>
      execFileSync('python3', [
        '-c',
        'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()',
        sock(),
      ]);
    for (const [what, make] of [
      ['missing', async () => {}],
      ['a directory', () => mkdir(sock())],
      ['a FIFO', async () => void execFileSync('mkfifo', [sock()])],
      ['a stale socket', async () => void stale()],
    ] as const) {
      await rm(sock(), { recursive: true, force: true });
      await make();
      const job = await newJob(['sh', '-c', `echo ${what.replace(/ /g, '-')}; exit 6`]);
      const child = wrapper(job);
      const done = await finished(child);
      expect(done.code, `${what}: ${child.err()}`).toBe(6);
      expect(child.out()).toBe(`${what.replace(/ /g, '-')}\n`);
      const record = await readJobRecord(paths, job.id);
      expect(record).toMatchObject({ exit_code: 6 });
      expect(record.wrapper_pid).not.toBe(child.pid);
    }
    await rm(sock(), { recursive: true, force: true });
  });
});
