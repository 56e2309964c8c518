// One suite, run against both backends: a job under Herdr (a new tab of the fake Herdr, whose shell
// is typed `dogsled exec ID`) behaves exactly like a headless one. Its argv reaches the command
// byte for byte (newlines, quotes, unusual but valid UTF-8), it runs in --cwd with the caller's
// environment, the Herdr pane variables are its own pane's (none headless), and the caller's
// environment, which may hold secrets, reaches no state file, record, `ps --json` or command line.

import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { statePaths } from '../../../service/state/paths.js';
import { readJobRecord } from '../../../service/state/records/job-records.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { type CliResult, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

/** Arguments a shell line could not carry as typed, and text that only looks unusual. */
const HARD_ARGS = [
  'two\nlines',
  'tab\there',
  "it's",
  '"quoted"',
  '$HOME `id` $(id)',
  'back\\slash',
  '',
  '  spaced  ',
  '-n',
  'ünïcödé 🦀 e\u0301',
  'literal \uFFFD replacement',
  'rtl \u202Eevil',
];

const SECRET = 'not-for-state-files-7f3a9c';

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

describe.each(['headless', 'herdr'] as const)('a job run %s', (backend) => {
  let box: Sandbox;
  let lock: ServiceLock;
  let herdr: FakeHerdr | undefined;
  let env: NodeJS.ProcessEnv;
  let callerPane: string | undefined;

  beforeAll(async () => {
    box = await sandbox();
    lock = await holdServiceLock(box.state);
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 64, busy: 0 }));
    env = { ...box.env, FOO: 'bar', MULTI: 'one\ntwo = three', SECRET_TOKEN: SECRET };
    if (backend === 'herdr') {
      herdr = await startFakeHerdr({ dir: join(box.root, 'herdr'), env: { HOME: box.home } });
      const created = (await herdr.call('workspace.create', { cwd: box.home })).result;
      callerPane = created.root_pane.pane_id;
      env = {
        ...env,
        HERDR_SOCKET_PATH: herdr.socketPath,
        HERDR_ENV: '1',
        HERDR_PANE_ID: callerPane,
        PATH: herdr.env.PATH,
      };
    }
  });

  afterAll(async () => {
    await herdr?.stop();
    await lock?.release();
    await box?.cleanup();
  });

  const run = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    runCli(['run', '--wait', '--cwd', box.root, '--', ...args], { ...env, ...extra }, { timeoutMs: 30_000 });

  it('passes every argument byte for byte, newlines included', async () => {
    const result = await run([
      'sh',
      '-c',
      'for a in "$@"; do printf "[%s]\\n" "$a"; done',
      'sh',
      ...HARD_ARGS,
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toBe(HARD_ARGS.map((a) => `[${a}]\n`).join(''));
  });

  it("runs in --cwd with the caller's environment, and exits with the job's status", async () => {
    const result = await run(
      ['sh', '-c', 'printf "%s|%s|%s|%s\\n" "$FOO" "$MULTI" "$PWD" "$(pwd)"; exit 7'],
      {
        FOO: 'from the caller',
      },
    );
    expect(result.code).toBe(7);
    expect(result.stdout).toBe(`from the caller|one\ntwo = three|${box.root}|${box.root}\n`);
  });

  it("sees its own pane's Herdr variables, never the caller's pane", async () => {
    const result = await run(['sh', '-c', 'echo "[$HERDR_PANE_ID] [$HERDR_ENV]"']);
    expect(result.code).toBe(0);
    const jobs = JSON.parse((await runCli(['ps', '--all', '--json'], env)).stdout).jobs as JobRecord[];
    const pane = jobs.at(-1)?.pane;
    if (backend === 'herdr') {
      expect(pane).toMatch(/\S/);
      expect(pane).not.toBe(callerPane);
      expect(result.stdout).toBe(`[${pane}] [1]\n`);
    } else {
      expect(result.stdout).toBe('[] []\n');
    }
  });

  it("keeps the caller's environment out of every state file, record, ps --json and command line", async () => {
    // The job checks the variable without printing it, by a pattern that is not the value itself.
    const seen = await run(['sh', '-c', 'case "$SECRET_TOKEN" in not-for-state-*-7f3a9c) echo seen;; esac']);
    expect(seen.stdout).toBe('seen\n');
    const id = JSON.parse((await runCli(['ps', '--all', '--json'], env)).stdout).jobs.at(-1).id as string;
    const record = await readJobRecord(statePaths(box.state), id);
    expect(record.ended_ms).not.toBeNull();
    for (const file of await filesUnder(box.state)) {
      expect({ file, secret: (await readFile(file, 'utf8')).includes(SECRET) }).toEqual({
        file,
        secret: false,
      });
    }
    // The job's environment file was consumed when the job started.
    expect(await stat(join(box.state, 'jobs', `${id}.env`)).catch(() => 'gone')).toBe('gone');
    if (herdr !== undefined) {
      // The line typed into the job's pane names the job and nothing else.
      const calls = (await herdr.call('_fake.calls.list', { method: 'pane.send_input' })).result
        .calls as Array<{
        params: { pane_id: string; text: string };
      }>;
      const typed = calls.find((call) => call.params.pane_id === record.pane)?.params.text ?? '';
      expect(typed).toMatch(new RegExp(` exec ${id}$`));
      expect(typed).not.toContain(SECRET);
      expect(typed).not.toContain('SECRET_TOKEN');
    }
  });
});
