// The launch line end to end: launch files written by the product, the line built by the core rule,
// started through the terminal port in a real pane shell of the fake Herdr, and read back from what
// the fake `pi`, `claude` and `codex` record. Each fake must accept exactly the arguments dogsled
// produces (nothing unknown) and find the task and contract where dogsled put them.

import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launchProfile, loadProfile, profilesDir } from '../../../service/agents/profiles.js';
import { CODEX_CONTRACT, type LaunchProfile, launchLine } from '../../../service/core/agents/launch-line.js';
import { statePaths } from '../../../service/state/paths.js';
import {
  launchFiles,
  writeContractFile,
  writeTaskFile,
} from '../../../service/state/records/launch-files.js';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import {
  FAKE_AGENTS_BIN,
  type LaunchRecord,
  scriptBlock,
  waitForLaunch,
} from '../../fakes/agents/harness.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
let home: string;
let work: string;
let logDir: string;
let herdr: FakeHerdr;
let port: TerminalPort;

beforeEach(async () => {
  dir = await tempDir('dogsled-launch-line-');
  home = join(dir, 'home');
  work = join(dir, 'work');
  logDir = join(dir, 'log');
  await mkdir(work, { recursive: true });
  herdr = await startFakeHerdr({
    dir,
    env: { HOME: home, PATH: `${FAKE_AGENTS_BIN}:${process.env.PATH ?? ''}`, FAKE_AGENT_LOG_DIR: logDir },
  });
  port = await openTerminal({ env: herdr.env, home, warn: () => {} });
});

afterEach(async () => {
  await herdr.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Started {
  launch: LaunchRecord;
  args: string[];
  task: string;
  contract: string;
}

/** Writes the launch files under `stateDir`, builds the line and starts `kind` with it in a new pane. */
async function start(kind: string, stateDir: string, profile: LaunchProfile | null = null): Promise<Started> {
  const paths = statePaths(stateDir);
  const id = `l_${kind}`;
  const task = await writeTaskFile(
    paths,
    id,
    `Report back.\n\n${scriptBlock([{ work_ms: 100 }, { reply: `${kind} finished.` }])}`,
  );
  const contract = await writeContractFile(paths, id, {
    name: `${kind}-child`,
    kind,
    host: 'local',
    owner: 'w1:p1',
    cwd: work,
    branch: null,
    taskFile: task,
  });
  const { root_pane } = (await herdr.call('workspace.create', { cwd: work })).result;
  const built = launchLine({
    kind,
    name: `${kind}-child`,
    pane: root_pane.pane_id,
    taskFile: task,
    contractFile: contract,
    stateDir,
    profile,
  });
  if (!built.ok) throw new Error(built.error);
  await port.startAgent({ name: `${kind}-child`, kind, paneId: root_pane.pane_id, args: built.line.args });
  const launch = await waitForLaunch(logDir, (record) => record.kind === kind);
  return { launch, args: built.line.args, task, contract };
}

describe('the launch line in a real pane', () => {
  it('Pi gets the task as @file, the contract and each profile prompt as system prompt files, in order', async () => {
    const profiles = profilesDir(home);
    await mkdir(join(profiles, 'general'), { recursive: true });
    await mkdir(join(profiles, '_shared'), { recursive: true });
    await writeFile(join(profiles, '_shared', 'lead.md'), 'Shared lead prompt.\n');
    await writeFile(join(profiles, 'general', 'prompt.md'), 'General prompt.\n');
    await writeFile(
      join(profiles, 'general', 'profile.json'),
      JSON.stringify({
        model: 'alias/sol',
        thinking: 'medium',
        prompt: ['../_shared/lead.md', 'prompt.md'],
        pi_args: ['--no-skills'],
        shepherdr_only: true,
      }),
    );
    const profile = launchProfile(await loadProfile(profiles, 'general'));
    // A state directory with every character a shell would act on.
    const state = join(dir, `st ate's "dir" $(touch ${dir}/pwned); \`id\` & -x *`);
    const { launch, args, task, contract } = await start('pi', state, profile);

    expect(launch.argv).toEqual(args);
    expect(launch.launch.unknown).toEqual([]);
    expect(launch.task_files).toEqual([task]);
    expect(launch.model).toBe('alias/sol');
    expect(launch.launch.thinking).toBe('medium');
    expect(launch.system_prompts.map((prompt) => [prompt.arg, prompt.file])).toEqual([
      [contract, true],
      [join(profiles, '_shared', 'lead.md'), true],
      [join(profiles, 'general', 'prompt.md'), true],
    ]);
    expect(launch.system_prompts[0]?.text).toContain('# dogsled child contract');
    expect(launch.system_prompts.slice(1).map((prompt) => prompt.text)).toEqual([
      'Shared lead prompt.\n',
      'General prompt.\n',
    ]);
    expect(launch.launch.flags).toContain('--no-skills');
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect(task.startsWith(state)).toBe(true);
    expect(launchFiles(statePaths(state), 'l_pi').task).toBe(task);
  });

  it('Claude gets a one-line pointer to the task and its contract pointer as appended text', async () => {
    const { launch, args, task, contract } = await start('claude', join(dir, 'state'));
    expect(launch.argv).toEqual(args);
    expect(launch.launch.unknown).toEqual([]);
    expect(launch.task_files).toEqual([task]);
    expect(launch.system_prompts).toHaveLength(1);
    expect(launch.system_prompts[0]).toMatchObject({ file: false });
    expect(launch.system_prompts[0]?.text).toContain(contract);
    expect(launch.launch.prompt).toBe(`You are claude-child. Your task is in ${task}: read it and do it.`);
  });

  it('Codex takes its fixed contract and the task pointer as its last argument', async () => {
    const { launch, args, task } = await start('codex', join(dir, 'state'));
    expect(launch.argv).toEqual(args);
    expect(launch.launch.unknown).toEqual([]);
    expect(launch.task_files).toEqual([task]);
    expect(launch.launch.prompt).toBe(
      `${CODEX_CONTRACT} You are codex-child. Your task is in ${task}: read it and do it.`,
    );
  });

  it.each(['claude', 'codex'])(
    '%s receives its arguments unchanged from a hostile state path',
    async (kind) => {
      const state = join(dir, `it's "a" $(touch ${dir}/pwned) ; \`id\``);
      const { launch, args } = await start(kind, state);
      expect(launch.argv).toEqual(args);
      expect(launch.launch.unknown).toEqual([]);
    },
  );
});
