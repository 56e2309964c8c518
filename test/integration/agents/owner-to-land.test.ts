// The loop dogsled exists for, run as a new user would: an owner pane under the fake Herdr starts
// a fake Claude child on a branch through a real `serve`; the child commits, calls `dogsled done`
// and replies. The owner's next Stop (the plugin's own hook command) then carries the reply and a
// reminder to land the branch, once: not again for the same set, again when another child finishes.
// `hook context` names the branch, `hook gate` and the board agree, and landing removes the row.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { readBranchObservations } from '../../../service/state/records/branch-observations.js';
import { type CliResult, runCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { hookJson } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';
import { workIO } from '../jobs/job-queue-fixtures.js';
import { agentCli, agentSuite, items, type Json } from './agent-fixtures.js';
import { sharedServe } from './agent-serve.js';

const suite = agentSuite({ serviceLock: false, share: 'state' });
sharedServe(suite, { cores: 32, ttlMs: 90_000, intervalS: 1 });
let repo: Repo;

beforeEach(async () => {
  repo = await freshRepo();
});
afterAll(removeScenarios);

/** A hook as Claude Code runs it in the owner's pane: its JSON on stdin. */
function ownerHook(args: string[], input: object): Promise<CliResult> {
  return runCli(['hook', ...args], suite.env, { input: JSON.stringify(input), cwd: repo.main });
}

const stop = () =>
  ownerHook(['inbox', '--harness', 'claude', '--event', 'Stop'], {
    hook_event_name: 'Stop',
    stop_hook_active: false,
  });

async function context(): Promise<string> {
  const result = await ownerHook(['context', '--harness', 'claude'], { hook_event_name: 'UserPromptSubmit' });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return hookJson(result)?.hookSpecificOutput.additionalContext ?? '';
}

async function toLandRows(): Promise<string[]> {
  const result = await runCli(['board', '--json'], suite.env);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout)
    .groups.find((g: Json) => g.id === 'to_land')
    .rows.map((row: Json) => row.reason);
}

/**
 * `dogsled agent --message-file` from the repository: a child that answers, waits until `go` exists
 * (when given), commits, calls `dogsled done` and replies. Returns its item id.
 */
async function startChild(name: string, branch: string, go?: string): Promise<string> {
  const task = join(suite.scratch, `${name}.md`);
  const wait = go === undefined ? [] : [{ run: `while [ ! -f '${go}' ]; do sleep 0.1; done` }];
  const steps = [
    { reply: 'Starting.' },
    ...wait,
    { work_ms: 200 },
    // Each child its own change: identical ones would land together when the first is squashed,
    // and the sweep would then race the test's own `branch -D` of the second.
    { run: `echo ${name} > ${name}.txt && git add ${name}.txt && git commit -qm "${name} work"` },
    { run: 'dogsled done' },
    { reply: `${name}: added ${name}.txt on ${branch}.` },
  ];
  await writeFile(task, `Finish the unit.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps })}\n\`\`\`\n`);
  const started = await agentCli(
    suite,
    ['--kind', 'claude', '--name', name, '--branch', branch, '--json', '--message-file', task],
    { cwd: repo.main },
  );
  expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(started.stdout).item;
}

async function finished(item: string): Promise<void> {
  await waitFor(
    `${item} closed by the service`,
    async () => ((await items(suite)).find((i) => i.id === item)?.close_reason === 'done' ? true : undefined),
    { timeoutMs: 30_000 },
  );
}

describe('an owner whose child finishes with dogsled done', () => {
  it('is reminded once at its next Stop, with the reply; again when the set changes; context names the branch', async () => {
    // The owner's first prompt registers its reader, as the plugin's hook does.
    const first = await ownerHook(['inbox', '--harness', 'claude', '--event', 'UserPromptSubmit'], {
      hook_event_name: 'UserPromptSubmit',
      prompt: 'start c1',
    });
    expect(first).toMatchObject({ code: 0, stdout: '' });

    // Two children start together; the second finishes only when the test says so.
    const go = join(suite.scratch, 'go');
    const [c1, c2] = await Promise.all([startChild('c1', 'feat/c1'), startChild('c2', 'feat/c2', go)]);
    await finished(c1);
    const block = hookJson(await stop());
    expect(block.decision).toBe('block');
    expect(block.reason).toContain('c1 finished');
    expect(block.reason).toContain('c1: added c1.txt on feat/c1.');
    expect(block.reason).toContain('Before you stop: 1 finished child has work to land.');
    expect(block.reason).toContain('- c1: branch feat/c1, 1 commit to land');
    // The same set: no second reminder, from either hook, across processes.
    expect(await stop()).toMatchObject({ code: 0, stdout: '' });
    expect(await ownerHook(['gate'], {})).toMatchObject({ code: 0, stdout: '' });
    const gate = JSON.parse(await readFile(join(suite.box.state, 'gate.json'), 'utf8'));
    expect(gate.owners[suite.caller.pane].sets).toEqual([`${c1}:1:clean`]);
    // Context and the board read the same row.
    expect(await context()).toContain('To land: c1 (branch feat/c1 +1)');
    expect(await toLandRows()).toEqual(['c1: branch feat/c1 +1 to land']);

    // Another child finishes: a new set, one more reminder naming both.
    await writeFile(go, '');
    await finished(c2);
    const again = hookJson(await stop());
    expect(again.reason).toContain('c2 finished');
    expect(again.reason).toContain('Before you stop: 2 finished children have work to land.');
    expect(again.reason).toContain('- c1: branch feat/c1, 1 commit to land');
    expect(again.reason).toContain('- c2: branch feat/c2, 1 commit to land');
    expect(await stop()).toMatchObject({ code: 0, stdout: '' });
    const line = (await context()).split('\n').find((l) => l.startsWith('To land: '));
    expect(line?.slice('To land: '.length).split('; ').sort()).toEqual([
      'c1 (branch feat/c1 +1)',
      'c2 (branch feat/c2 +1)',
    ]);

    // Landing both removes their rows everywhere; with nothing left the owner's history goes.
    await repo.squash('feat/c1');
    await repo.git(['branch', '-D', 'feat/c2']);
    // Once the service's branch watch has seen both go, no reader shows a row.
    await waitFor(
      'both branches seen landed or deleted',
      async () => {
        const seen = await readBranchObservations(workIO(suite.box));
        return [c1, c2].every((item) => seen.filter((o) => o.item === item).at(-1)?.landed) || undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(await toLandRows()).toEqual([]);
    expect(await context()).not.toContain('To land');
    expect(await stop()).toMatchObject({ code: 0, stdout: '' });
    const after = JSON.parse(await readFile(join(suite.box.state, 'gate.json'), 'utf8'));
    expect(after.owners).toEqual({});
  });
});
