// A queued `run` answers with a ticket only, so `wait`, `logs` and `stop` take a ticket id wherever
// they take a job id and follow it to the job the service admits from it. While it is pending:
// `wait` waits for the admission and then the job under one --max, `logs` says it is queued (exit 1,
// as for `run`) and `logs --follow` waits for it, and `stop` points at `cancel`. A ticket that failed,
// was cancelled or is a bare placement has no job, which each says in one line.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statePaths } from '../../../service/state/paths.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { ticketFixture } from '../../helpers/job-fixtures.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';
import { admitByHand, appendTickets } from './job-queue-fixtures.js';

let box: Sandbox;
let lock: ServiceLock;

beforeEach(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
  // A host with no room: every run queues.
  await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 0.9 }));
});

afterEach(async () => {
  await lock.release();
  await box.cleanup();
});

const _io = () => ({ paths: statePaths(box.state), now: Date.now, warn: () => {} });

async function queuedRun(script: string): Promise<string> {
  const result = await runCli(['run', '--json', '--cwd', box.root, '--', 'sh', '-c', script], box.env);
  expect(result.code).toBe(1);
  return (JSON.parse(result.stdout) as { ticket: string }).ticket;
}

async function admit(ticketId: string): Promise<string> {
  return (await admitByHand(box, ticketId)).job.id;
}

describe('a pending ticket', () => {
  it('logs says it is queued (exit 1), stop points at cancel, wait is still running at --max', async () => {
    const ticket = await queuedRun('echo hi');
    expect(await runCli(['logs', ticket], box.env)).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `dogsled: logs: ticket ${ticket} is queued: its job has not started (dogsled logs ${ticket} --follow waits for it)\n`,
    });
    expect(await runCli(['stop', ticket], box.env)).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `dogsled: stop: ticket ${ticket} is still queued, nothing runs yet: cancel it with dogsled cancel ${ticket}\n`,
    });
    expect(await runCli(['wait', ticket, '--max', '300ms'], box.env)).toMatchObject({
      code: 124,
      stdout: 'still running\n',
    });
  });

  it("wait and logs --follow follow it through admission to the job's end", async () => {
    const ticket = await queuedRun('echo from the ticket; exit 4');
    const waiting = startCli(['wait', ticket], box.env);
    const following = startCli(['logs', ticket, '--follow'], box.env);
    const job = await admit(ticket);
    expect(await exited(waiting)).toEqual({ code: 4, signal: null });
    expect(await exited(following)).toEqual({ code: 0, signal: null });
    expect(following.output()).toBe('from the ticket\n');
    // Once admitted, the ticket names the job for every command.
    expect(await runCli(['logs', ticket], box.env)).toMatchObject({ code: 0, stdout: 'from the ticket\n' });
    expect(await runCli(['wait', ticket], box.env)).toMatchObject({ code: 4 });
    expect(await runCli(['stop', ticket], box.env)).toMatchObject({
      code: 0,
      stdout: `${job} already ended (exit 4)\n`,
    });
  });

  it('stop of an admitted ticket stops its running job', async () => {
    const gate = join(box.root, 'never');
    const ticket = await queuedRun(`while [ ! -e ${gate} ]; do sleep 0.05; done`);
    const job = await admit(ticket);
    await waitFor(
      'the job running',
      async () => ((await runCli(['ps', '--json'], box.env)).stdout.includes('"running"') ? true : undefined),
      { timeoutMs: 10_000 },
    );
    const stopped = await runCli(['stop', ticket], {
      ...box.env,
      DOGSLED_TEST: '1',
      DOGSLED_TEST_STOP_GRACE_MS: '2000',
    });
    expect(stopped).toMatchObject({ code: 0, stdout: `${job} stopped (sent SIGTERM)\n` });
  });
});

describe('a ticket without a job', () => {
  it.each([
    ['failed', { state: 'failed', error: 'unknown host "netcup"' }, 'failed: unknown host "netcup"'],
    ['cancelled', { state: 'cancelled', error: 'cancelled' }, 'was cancelled'],
    ['a placement', { state: 'admitted', kind: 'place', request: null }, null],
  ] as const)(
    '%s: wait and logs say so in one line (exit 2), stop says nothing runs',
    async (_name, fields, why) => {
      const id = 't_settled00001';
      await appendTickets(box, [ticketFixture({ id, ...fields })]);
      const line =
        why === null ? `ticket ${id} is a placement: it has no job` : `ticket ${id} ${why}: it has no job`;
      expect(await runCli(['wait', id], box.env)).toMatchObject({
        code: 2,
        stderr: `dogsled: wait: ${line}\n`,
      });
      expect(await runCli(['logs', id], box.env)).toMatchObject({
        code: 2,
        stderr: `dogsled: logs: ${line}\n`,
      });
      const stop = await runCli(['stop', id], box.env);
      if (why === null) expect(stop).toMatchObject({ code: 2, stderr: `dogsled: stop: ${line}\n` });
      else expect(stop).toMatchObject({ code: 0, stdout: `${id} ${why}: nothing runs\n`, stderr: '' });
    },
  );

  it('an unknown ticket is one line, exit 2, and escapes in the id never reach the terminal', async () => {
    for (const command of ['wait', 'logs', 'stop']) {
      const result = await runCli([command, 't_nope\u001b]0;owned\u0007'], box.env);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      // The OSC sequence is removed whole, its payload included.
      expect(result.stderr).toMatch(new RegExp(`^dogsled: ${command}: unknown (ticket|job) "t_nope"\\n$`));
      expect(result.stderr).not.toContain('\u001b');
    }
    expect(await runCli(['wait', 't_nope'], box.env)).toMatchObject({
      code: 2,
      stderr: 'dogsled: wait: unknown ticket "t_nope"\n',
    });
  });
});
