// The warm supervisor's socket is made by the service (service/process/listening-socket.ts,
// service/daemon/warm-worker.ts) and handed to the supervisor as a descriptor, the moment the one
// before was taken: a launch that comes while the next one's Node is still starting waits for it in
// the socket's backlog rather than finding no socket and starting a Node of its own. A supervisor
// that dies with launches waiting there, or unclaimed, leaves them to start their own, with each
// job run once. One real service for the whole file; the tests run in order.

import { lstat, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type Sandbox, type startCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { theWarmOne as theWarmOneOf, warmPids as warmPidsOf } from '../../helpers/warm-supervisor.js';
import {
  jobsNamed as jobsNamedIn,
  type RoomyService,
  startRoomyService,
  stopRoomyService,
} from './job-queue-fixtures.js';

let box: Sandbox;
let work: string;
let env: NodeJS.ProcessEnv;
let serve: ReturnType<typeof startCli>;
let service: RoomyService | undefined;

beforeAll(async () => {
  service = await startRoomyService();
  ({ box, work, env, serve } = service);
});

afterAll(() => stopRoomyService(service));

const sock = () => join(box.state, 'supervisor.sock');
const warmPids = () => warmPidsOf(box.state);
const theWarmOne = (not?: number) => theWarmOneOf(box.state, not);

/** The jobs whose command's last word is `last`. */
const jobsNamed = (last: string) => jobsNamedIn(box.state, last);

/** The first warm supervisor other than `not` to appear in the process table, stopped at once. */
async function stopNextWarm(not: number): Promise<number> {
  return waitFor(
    'the next warm supervisor',
    async () => {
      const next = (await warmPids()).find((pid) => pid !== not);
      if (next === undefined) return undefined;
      process.kill(next, 'SIGSTOP');
      return next;
    },
    { timeoutMs: 20_000, intervalMs: 1 },
  );
}

/** The variable a process was started with, from its environment in /proc. */
async function startedWith(pid: number, key: string): Promise<string | undefined> {
  const vars = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
  return vars.find((v) => v.startsWith(`${key}=`))?.slice(key.length + 1);
}

describe('the warm supervisor socket the service makes', () => {
  it('is in place before the next one runs: a run that comes meanwhile waits for it, and it runs the job', async () => {
    const first = await theWarmOne();
    const taking = runCli(['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo one', 'takes-first'], env);
    // Stopped as soon as it exists, most likely before its Node has listened at all.
    const next = await stopNextWarm(first);
    let waiting: ReturnType<typeof runCli> | undefined;
    try {
      expect((await taking).stdout).toBe('one\n');
      // The path already holds the socket the service made for it, named in its environment.
      const made = await lstat(sock());
      expect(made.isSocket()).toBe(true);
      expect(await startedWith(next, 'DOGSLED_EXEC_WARM_SOCKET')).toBe(String(made.ino));
      waiting = runCli(
        [
          'run',
          '--wait',
          '--cwd',
          work,
          '--',
          'sh',
          '-c',
          'ls -l /proc/$$/fd | grep -c socket; exit 3',
          'waits',
        ],
        env,
      );
      // Its record is written just before it claims: it now waits on the stopped one's backlog.
      await waitFor('the run to write its record', async () =>
        (await jobsNamed('waits')).length ? true : undefined,
      );
    } finally {
      process.kill(next, 'SIGCONT');
    }
    const result = await waiting;
    expect(result?.code, result?.stderr).toBe(3);
    // The job holds no socket of the supervisor's: descriptor 3 was closed before it started.
    expect(result?.stdout).toBe('0\n');
    const [job] = await jobsNamed('waits');
    expect(job).toMatchObject({ wrapper_pid: next, exit_code: 3 });
    await theWarmOne(next);
  });

  it('leaves a run waiting on it to start its own when it dies, the job run once', async () => {
    const current = await theWarmOne();
    process.kill(current, 'SIGSTOP');
    const run = runCli(
      ['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo once; exit 5', 'orphaned'],
      env,
    );
    try {
      await waitFor('the run to write its record', async () =>
        (await jobsNamed('orphaned')).length ? true : undefined,
      );
    } finally {
      process.kill(current, 'SIGKILL');
    }
    const result = await run;
    expect(result.code, result.stderr).toBe(5);
    expect(result.stdout).toBe('once\n');
    const jobs = await jobsNamed('orphaned');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.wrapper_pid).not.toBe(current);
    expect(await readFile(join(box.state, 'jobs', `${jobs[0]?.id}.log`), 'utf8')).toBe('once\n');
    // The service replaced it, with a socket of its making.
    const replaced = await theWarmOne(current);
    expect(await startedWith(replaced, 'DOGSLED_EXEC_WARM_SOCKET')).toBe(String((await stat(sock())).ino));
  });

  it('is removed when its supervisor dies unclaimed and the service waits out a backoff', async () => {
    let current = await theWarmOne();
    process.kill(current, 'SIGKILL');
    current = await theWarmOne(current);
    process.kill(current, 'SIGKILL');
    await waitFor(
      'the backoff warning',
      async () => (serve.output().includes('exited twice before taking a job') ? true : undefined),
      { timeoutMs: 20_000 },
    );
    // No socket that answers no one: a run finds none, and starts its supervisor ahead.
    await waitFor(
      'no socket',
      async () => (await lstat(sock()).catch(() => undefined)) === undefined || undefined,
    );
    expect(await warmPids()).toEqual([]);
    const result = await runCli(
      ['run', '--wait', '--cwd', work, '--', 'sh', '-c', 'echo fine', 'backoff'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('fine\n');
  });
});
