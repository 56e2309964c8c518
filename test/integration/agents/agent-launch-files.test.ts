// Launch files and records in a real state directory: the task and contract written whole and
// private, hostile input cleaned or refused before anything is written, the durable record changed
// only under its lock, and the record carrying what the pane rule's "final launch" needs.

import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TASK_MAX_BYTES } from '../../../service/core/agents/child-contract.js';
import { childRole } from '../../../service/core/agents/launch-state.js';
import { type PaneFacts, paneVerdict } from '../../../service/core/cleanup/pane-rule.js';
import { DogsledError } from '../../../service/core/common/errors.js';
import { statePaths } from '../../../service/state/paths.js';
import {
  createLaunchRecord,
  launchFiles,
  launchPaneRecords,
  listLaunchRecords,
  type NewLaunch,
  newLaunchId,
  readLaunchRecord,
  updateLaunchRecord,
  writeContractFile,
  writeTaskFile,
} from '../../../service/state/records/launch-files.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
let paths: ReturnType<typeof statePaths>;
let clock: number;
let warnings: string[];
const io = () => ({ paths, now: () => clock, warn: (line: string) => warnings.push(line) });

beforeEach(async () => {
  dir = await tempDir('dogsled-launch-files-');
  paths = statePaths(join(dir, 'state'));
  clock = 1_800_000_000_000;
  warnings = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;

function launch(id: string, extra: Partial<NewLaunch> = {}): NewLaunch {
  return {
    id,
    ticket: 't_1',
    item: 'i_1',
    owner: 'w1:p1',
    host: 'local',
    name: 'api-dups',
    kind: 'pi',
    profile: 'general',
    model: 'alias/sol',
    role: childRole(null, true),
    cwd: '/repo/.worktrees/feat-x',
    branch: 'feat/x',
    worktree: '/repo/.worktrees/feat-x',
    pane: 'w3:p1',
    terminal_id: 'term_1',
    workspace: 'w3',
    ...extra,
  };
}

describe('the task file', () => {
  it('is written whole, 0600 in a 0700 launches dir, with terminal escapes removed', async () => {
    const id = newLaunchId();
    expect(id).toMatch(/^l_[a-z2-7]{12}$/);
    const file = await writeTaskFile(
      paths,
      id,
      'Fix it.\r\n\u001b[31mred\u001b[0m\u001b]0;title\u0007 and\ttabs\u0000',
    );
    expect(file).toBe(join(paths.launches, `${id}.task.md`));
    expect(await readFile(file, 'utf8')).toBe('Fix it.\nred and\ttabs\n');
    expect(await mode(file)).toBe(0o600);
    expect(await mode(paths.launches)).toBe(0o700);
    expect((await readdir(paths.launches)).sort()).toEqual([`${id}.task.md`]);
  });

  it.each([
    ['empty', '', /^the task is empty/],
    ['only whitespace and escapes', ' \n\t\u001b[2J\u001b[H ', /^the task is empty/],
    ['over 1 MiB', 'x'.repeat(TASK_MAX_BYTES + 1), /^the task is 1048577 bytes, over the 1048576-byte limit/],
  ])('that is %s is refused, with nothing written', async (_what, text, error) => {
    await expect(writeTaskFile(paths, 'l_x', text)).rejects.toThrow(error);
    await expect(lstat(paths.launches)).rejects.toThrow(/ENOENT/);
  });

  it('replaces a FIFO in its place without opening it, and a directory there is one line', async () => {
    await mkdir(paths.launches, { recursive: true });
    const { task } = launchFiles(paths, 'l_fifo');
    execFileSync('mkfifo', [task]);
    await writeTaskFile(paths, 'l_fifo', 'task');
    expect((await lstat(task)).isFile()).toBe(true);
    await mkdir(launchFiles(paths, 'l_dir').task);
    const error = await writeTaskFile(paths, 'l_dir', 'task').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DogsledError);
    expect((error as Error).message).toBe(
      `cannot write ${launchFiles(paths, 'l_dir').task}: a directory is in the way`,
    );
  });

  it('refuses a launches path that is a file, and ids that would name other paths', async () => {
    await mkdir(paths.dir, { recursive: true });
    await writeFile(paths.launches, '');
    await expect(writeTaskFile(paths, 'l_x', 'task')).rejects.toThrow(
      `cannot make ${paths.launches}: a file is in the way`,
    );
    for (const id of ['../x', 'a/b', '', 'x.json', 'l x']) {
      expect(() => launchFiles(paths, id)).toThrow(/^launch id ".*" is not valid$/);
    }
  });
});

describe('the contract file', () => {
  it('names the child, its task, its branch and `dogsled done`, with escapes from its facts removed', async () => {
    const file = await writeContractFile(paths, 'l_c', {
      name: 'api-dups',
      kind: 'pi',
      host: 'build-box',
      owner: 'w1:p1',
      cwd: '/repo/.worktrees/feat-x\u001b[2J',
      branch: 'feat/x',
      taskFile: launchFiles(paths, 'l_c').task,
    });
    const text = await readFile(file, 'utf8');
    expect(await mode(file)).toBe(0o600);
    expect(text).toContain('You are **api-dups**, a pi agent that dogsled started on host build-box');
    expect(text).toContain(launchFiles(paths, 'l_c').task);
    expect(text).toContain('on branch `feat/x`');
    expect(text).toContain('run `dogsled done` in that same final working turn');
    expect(text).toContain("dogsled's inbox");
    expect(text).not.toContain('\u001b');
  });
});

describe('the launch record', () => {
  it('starts preparing with its file paths, and moves state_ms only when the state changes', async () => {
    const created = await createLaunchRecord(io(), launch('l_a'));
    expect(created).toMatchObject({
      id: 'l_a',
      state: 'preparing',
      attempts: 0,
      error: null,
      recent_output: null,
      role: 'writer',
      task_file: launchFiles(paths, 'l_a').task,
      contract_file: launchFiles(paths, 'l_a').contract,
      created_ms: clock,
      state_ms: clock,
      started_ms: null,
    });
    expect(await mode(launchFiles(paths, 'l_a').record)).toBe(0o600);
    clock += 1_000;
    const tried = await updateLaunchRecord(io(), 'l_a', (current) => ({
      ...current,
      attempts: current.attempts + 1,
    }));
    expect(tried).toMatchObject({ attempts: 1, state: 'preparing', state_ms: clock - 1_000 });
    clock += 1_000;
    const started = await updateLaunchRecord(io(), 'l_a', (current) => ({
      ...current,
      state: 'started',
      started_ms: clock,
    }));
    expect(started).toMatchObject({ state: 'started', state_ms: clock, started_ms: clock });
    expect(await readLaunchRecord(paths, 'l_a')).toEqual(started);
  });

  it('keeps fields a newer dogsled wrote', async () => {
    await createLaunchRecord(io(), launch('l_n'));
    const file = launchFiles(paths, 'l_n').record;
    await writeFile(file, JSON.stringify({ ...JSON.parse(await readFile(file, 'utf8')), future: { x: 1 } }));
    await updateLaunchRecord(io(), 'l_n', (current) => ({ ...current, state: 'unknown' }));
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ state: 'unknown', future: { x: 1 } });
  });

  it('loses no update from concurrent writers', async () => {
    await createLaunchRecord(io(), launch('l_c'));
    await Promise.all(
      Array.from({ length: 8 }, () =>
        updateLaunchRecord(io(), 'l_c', (current) => ({ ...current, attempts: current.attempts + 1 })),
      ),
    );
    expect((await readLaunchRecord(paths, 'l_c'))?.attempts).toBe(8);
  });

  it('is never created twice, and an update of a missing one names it', async () => {
    await createLaunchRecord(io(), launch('l_d'));
    await expect(createLaunchRecord(io(), launch('l_d'))).rejects.toThrow(/launch l_d already has a record/);
    await expect(updateLaunchRecord(io(), 'l_none', (c) => c)).rejects.toThrow(
      `launch l_none: no record at ${launchFiles(paths, 'l_none').record}`,
    );
  });

  it('that is a directory is one line; one that is corrupt is moved aside with a warning', async () => {
    await mkdir(launchFiles(paths, 'l_dir').record, { recursive: true });
    const error = await updateLaunchRecord(io(), 'l_dir', (c) => c).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DogsledError);
    expect((error as Error).message).not.toContain('\n');
    expect(await readLaunchRecord(paths, 'l_dir').catch((e: Error) => e.message)).toBe(
      `launch l_dir: record ${launchFiles(paths, 'l_dir').record}: not a regular file`,
    );
    await writeFile(launchFiles(paths, 'l_bad').record, '{"id":');
    await expect(updateLaunchRecord(io(), 'l_bad', (c) => c)).rejects.toThrow(/launch l_bad: no record/);
    expect(warnings).toEqual([
      expect.stringMatching(/^dogsled: warning: l_bad\.json was corrupt .*moved to l_bad\.json\.bad-/),
    ]);
  });

  it('listing skips what is not a record, reports broken ones, and never opens a FIFO', async () => {
    await createLaunchRecord(io(), launch('l_2'));
    clock -= 5_000;
    await createLaunchRecord(io(), launch('l_1'));
    await writeTaskFile(paths, 'l_1', 'task');
    execFileSync('mkfifo', [join(paths.launches, 'l_fifo.json')]);
    await writeFile(join(paths.launches, 'l_bad.json'), 'nope');
    await writeFile(join(paths.launches, 'l_other.json'), await readFile(launchFiles(paths, 'l_1').record));
    const listing = await listLaunchRecords(paths);
    expect(listing.records.map((record) => record.id)).toEqual(['l_1', 'l_2']);
    expect(listing.problems.map((problem) => [problem.path.split('/').pop(), problem.reason])).toEqual([
      ['l_bad.json', expect.stringMatching(/^not JSON/)],
      ['l_fifo.json', 'not a regular file'],
      ['l_other.json', 'record id "l_1" does not match its file name'],
    ]);
  });
});

describe('launch records and the pane rule', () => {
  const NOW = 1_800_000_000_000;

  function emptyShell(terminal: string, records: PaneFacts['records']): PaneFacts {
    return {
      pane: 'w3:p1',
      terminalId: terminal,
      caller: false,
      focused: false,
      agent: null,
      prompt: { kind: 'empty', shell: 'bash' },
      directoryGone: false,
      cwd: '/repo',
      records,
      watch: { pane: 'w3:p1', empty_since_ms: NOW - 60_000, observed_ms: NOW },
    };
  }

  it.each([
    ['preparing', 'keep', 'its launch l_a is not final'],
    ['unknown', 'keep', 'its launch l_a is not final'],
    ['started', 'close', 'empty bash prompt; its launch l_a is final'],
    ['refused', 'close', 'empty bash prompt; its launch l_a is final'],
    ['failed', 'close', 'empty bash prompt; its launch l_a is final'],
  ] as const)('an empty shell whose launch is %s: %s', async (state, verdict, reason) => {
    await createLaunchRecord(io(), launch('l_a', { terminal_id: 'term_9' }));
    await updateLaunchRecord(io(), 'l_a', (current) => ({ ...current, state }));
    const byTerminal = launchPaneRecords((await listLaunchRecords(paths)).records);
    expect(paneVerdict(emptyShell('term_9', byTerminal.get('term_9') ?? []), NOW)).toEqual({
      kind: verdict,
      reason,
    });
  });

  it('only the newest launch in a terminal counts, and a launch without a terminal owns no pane', async () => {
    await createLaunchRecord(io(), launch('l_old', { terminal_id: 'term_1' }));
    await updateLaunchRecord(io(), 'l_old', (current) => ({ ...current, state: 'unknown' }));
    clock += 1_000;
    await createLaunchRecord(io(), launch('l_new', { terminal_id: 'term_1' }));
    await updateLaunchRecord(io(), 'l_new', (current) => ({ ...current, state: 'refused' }));
    await createLaunchRecord(io(), launch('l_none', { terminal_id: null, pane: null }));
    const byTerminal = launchPaneRecords((await listLaunchRecords(paths)).records);
    expect([...byTerminal]).toEqual([['term_1', [{ kind: 'launch', id: 'l_new', finished: true }]]]);
  });
});
