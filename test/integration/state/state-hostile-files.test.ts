// Hostile or unlucky state files under the commands that read them: a directory, a FIFO, a device
// (a symlink to /dev/zero, which never ends) or a symlink loop where a state file belongs, and a
// file the caller may not read. Each is one line naming the file and exit 2: never a stack trace,
// never exit 70, never a hang.

import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureStateDir, statePaths } from '../../../service/state/paths.js';
import { readPaneWatch } from '../../../service/state/records/pane-watch-file.js';
import { type CliResult, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';
import { readableCli } from '../../helpers/readable-copy.js';
import { writeJobs } from '../jobs/job-queue-fixtures.js';

const JOB = 'j_hostile00001';
const KINDS = ['a directory', 'a FIFO', 'a device', 'a symlink loop'] as const;
type Kind = (typeof KINDS)[number];

let box: Sandbox;

beforeEach(async () => {
  box = await sandbox();
  await ensureStateDir(box.state);
});

afterEach(async () => {
  await box.cleanup();
});

async function makeHostile(path: string, kind: Kind): Promise<void> {
  if (kind === 'a directory') await mkdir(path);
  else if (kind === 'a FIFO') execFileSync('mkfifo', [path]);
  else if (kind === 'a device') await symlink('/dev/zero', path);
  else await symlink(path, path);
}

/** Each state file with a command that reads it; `prepare` writes what the command needs first. */
const READERS: Array<{ file: string; args: string[]; prepare?: () => Promise<void> }> = [
  { file: 'host.json', args: ['status', '--json'] },
  { file: 'host.json', args: ['status', '--line'] },
  { file: 'placements.json', args: ['place', '--json'] },
  { file: 'queue.json', args: ['items'] },
  { file: 'items.json', args: ['status'] },
  { file: 'repositories.json', args: ['doctor', '--json'] },
  { file: 'worktrees.json', args: ['doctor', '--json'] },
  { file: `jobs/${JOB}.json`, args: ['logs', JOB], prepare: () => mkdir(join(box.state, 'jobs')) },
  {
    file: `jobs/${JOB}.log`,
    args: ['logs', JOB],
    prepare: () => writeJobs(box, [jobFixture({ id: JOB, started_ms: 1, ended_ms: 2, exit_code: 0 })]),
  },
];

function expectOneLineNaming(result: CliResult, file: string): void {
  expect(result.signal).toBeNull();
  expect(result.code).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^dogsled: /);
  expect(lines[0]).toContain(join(box.state, file));
  expect(result.stderr).not.toContain('internal error');
}

describe('a state file that is not a regular file', () => {
  for (const { file, args, prepare } of READERS) {
    it.each(KINDS)(`${file} as %s: \`${args.join(' ')}\` says so in one line, exit 2`, async (kind) => {
      await prepare?.();
      await makeHostile(join(box.state, file), kind);
      // A reader that blocked on a FIFO or read /dev/zero would be killed here (signal, no code).
      const result = await runCli(args, box.env, { timeoutMs: 20_000, cwd: box.root });
      expectOneLineNaming(result, file);
    });
  }

  it.each(KINDS)('pane-watch.json as %s is one error naming it, read without blocking', async (kind) => {
    const paths = statePaths(box.state);
    await makeHostile(paths.paneWatch, kind);
    await expect(readPaneWatch({ paths, now: Date.now, warn: () => undefined })).rejects.toThrow(
      paths.paneWatch,
    );
  });

  it('a FIFO service.json is ignored (the record is advisory): status reads the lock and never blocks', async () => {
    execFileSync('mkfifo', [join(box.state, 'service.json')]);
    await mkdir(join(box.state, 'service.lock'));
    const result = await runCli(['status', '--json'], box.env, { timeoutMs: 20_000 });
    expect(result.code).toBe(0);
    // A lock without an owner record, fresh: a service that is starting up.
    expect(JSON.parse(result.stdout).hosts[0].service).toBe('up');
  });

  it('nothing was written or moved aside next to the hostile file', async () => {
    await makeHostile(join(box.state, 'placements.json'), 'a directory');
    expectOneLineNaming(await runCli(['place', '--json'], box.env), 'placements.json');
    expect((await readdir(box.state)).sort()).toEqual(['placements.json']);
  });
});

describe('escape sequences in the state path', () => {
  it('never reach the terminal through the error line', async () => {
    const state = join(box.root, 'st\u001b]0;pwned\u0007ate');
    await ensureStateDir(state);
    await mkdir(join(state, 'placements.json'));
    const result = await runCli(['place', '--json'], { ...box.env, DOGSLED_STATE: state });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('placements.json: it is a directory, not a regular file');
    expect(result.stderr.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});

describe('a state file the caller may not read', () => {
  it('placements.json: `place` names it with the reason, exit 2', async () => {
    const file = join(box.state, 'placements.json');
    await writeFile(file, JSON.stringify({ version: 1, reservations: [] }));
    const result = await asUnprivileged(['place', '--json'], file);
    expectOneLineNaming(result, 'placements.json');
    expect(result.stderr).toContain('permission denied (EACCES)');
  });
});

/**
 * Root reads any file whatever its mode, so as root the command runs as `nobody` over a sandbox it
 * owns, except `file`, which stays root's with mode 0600; otherwise the file is made mode 000.
 */
async function asUnprivileged(args: string[], file: string): Promise<CliResult> {
  if (process.getuid?.() !== 0) {
    await chmod(file, 0o000);
    return runCli(args, box.env);
  }
  const nobody = 65_534;
  const cli = await readableCli(join(box.root, 'cli'));
  execFileSync('chown', ['-R', `${nobody}:${nobody}`, box.root]);
  await chown(file, 0, 0);
  await chmod(file, 0o600);
  return runCli(args, box.env, { uid: nobody, gid: nobody, cwd: box.root, cli });
}
