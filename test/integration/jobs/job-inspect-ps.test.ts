import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readStat } from '../../../service/process/process-table.js';
import { writeJobRecord } from '../../../service/state/records/job-records.js';
import { runCli } from '../../helpers/cli.js';
import {
  alive,
  createdRecord,
  deadProcess,
  type JobSandbox,
  jobSandbox,
  killGroup,
  self,
} from './job-inspect-fixture.js';

const NOW = 1_700_000_000_000;
let box: JobSandbox;
const groups: number[] = [];

beforeEach(async () => {
  box = await jobSandbox({ DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW) });
});

afterEach(async () => {
  for (const pgid of groups.splice(0)) killGroup(pgid);
  await box.cleanup();
});

/** One job in each state, plus one whose wrapper died and whose pgid now names a stranger. */
async function jobs() {
  const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  const strangerPid = stranger.pid as number;
  groups.push(strangerPid);
  const strangerStart = (await readStat(strangerPid))?.start ?? 0;
  const wrapper = await self();
  const dead = await deadProcess();
  const records = [
    createdRecord('j_ended', {
      command: ['sh', '-c', 'echo hi; exit 3'],
      created_ms: NOW - 60_000,
      started_ms: NOW - 59_000,
      ended_ms: NOW - 50_000,
      exit_code: 3,
    }),
    createdRecord('j_running', {
      command: ['make', 'test'],
      created_ms: NOW - 40_000,
      started_ms: NOW - 30_000,
      wrapper_pid: wrapper.pid,
      wrapper_start: wrapper.start,
    }),
    createdRecord('j_lost', {
      command: ['sleep', '30'],
      created_ms: NOW - 20_000,
      started_ms: NOW - 19_000,
      wrapper_pid: dead.pid,
      wrapper_start: dead.start,
      pgid: strangerPid,
      pgid_start: strangerStart + 1,
    }),
    createdRecord('j_created', {
      command: ['printf', '\x1b[31mred\x1b]0;title\x07\nnext'],
      created_ms: NOW - 5_000,
    }),
  ];
  for (const record of records) await writeJobRecord(box.io.paths, record);
  return { strangerPid };
}

describe('dogsled ps', () => {
  test('with no jobs says so', async () => {
    expect(await runCli(['ps'], box.env)).toMatchObject({
      code: 0,
      stdout: 'no jobs running (dogsled ps --all also lists ended jobs)\n',
      stderr: '',
    });
    expect(await runCli(['ps', '--all', '--json'], box.env)).toMatchObject({
      code: 0,
      stdout: '{\n  "jobs": []\n}\n',
    });
  });

  test('lists jobs that have not ended, oldest first; a dead wrapper is reconciled, a stranger untouched', async () => {
    const { strangerPid } = await jobs();
    const result = await runCli(['ps'], box.env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        'ID         STATE    HOST   END  TIME  COMMAND',
        'j_running  running  local  -    30s   make test',
        "j_created  created  local  -    5s    printf 'red next'",
        '',
      ].join('\n'),
    );
    expect(await alive(strangerPid)).toBe(true);
  });

  test('--all adds ended and lost jobs, with their end token and how long they took', async () => {
    await jobs();
    const result = await runCli(['ps', '--all'], box.env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        'ID         STATE    HOST   END           TIME  COMMAND',
        "j_ended    ended    local  exit 3        9s    sh -c 'echo hi; exit 3'",
        'j_running  running  local  -             30s   make test',
        'j_lost     lost     local  wrapper lost  19s   sleep 30',
        "j_created  created  local  -             5s    printf 'red next'",
        '',
      ].join('\n'),
    );
  });

  test('--json prints the records with their derived state, and a bad record is a warning', async () => {
    await jobs();
    await writeFile(join(box.io.paths.jobs, 'j_torn.json'), '{"version":1,');
    const plain = await runCli(['ps', '--json'], box.env);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toMatch(/^dogsled: warning: job record .*j_torn\.json: not JSON: [^\n]*\n$/);
    const running = JSON.parse(plain.stdout) as { jobs: Array<{ id: string; state: string }> };
    expect(running.jobs.map((job) => [job.id, job.state])).toEqual([
      ['j_running', 'running'],
      ['j_created', 'created'],
    ]);
    const all = JSON.parse((await runCli(['ps', '--all', '--json'], box.env)).stdout);
    expect(all.jobs.map((job: { id: string; state: string }) => [job.id, job.state])).toEqual([
      ['j_ended', 'ended'],
      ['j_running', 'running'],
      ['j_lost', 'lost'],
      ['j_created', 'created'],
    ]);
    expect(all.jobs[2]).toMatchObject({ reason: 'wrapper lost', ended_ms: NOW, exit_code: null });
    expect(all.jobs[3].command).toEqual(['printf', '\x1b[31mred\x1b]0;title\x07\nnext']);
  });
});
