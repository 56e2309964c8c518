// `dogsled agent` against the fake Herdr with the fake Pi, Claude and Codex: the child starts in its
// own pane with the task as a file (never typed), the launch record and the owner's item say where,
// and every refusal (a long line, a bad name, a busy pane, no Herdr) happens before a pane exists or
// closes the empty pane it made. An unknown start outcome is reconciled on the next try.

import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AgentOutputSchema } from '../../../cli/output-schemas.js';
import { LAUNCH_LINE_MAX_BYTES } from '../../../service/core/agents/launch-line.js';
import { FAKE_AGENTS_BIN } from '../../fakes/agents/harness.js';
import { runCli } from '../../helpers/cli.js';
import {
  agentCalls,
  agentCli,
  agentSuite,
  items,
  type Json,
  launchFileNames,
  newLaunches,
  ok,
  onlyRecord,
  paneIds,
  quickTask,
  waitForNewLaunch,
} from './agent-fixtures.js';

// One fake Herdr for the file; each test has its own state dir, and its panes close when it ends.
const suite = agentSuite({ share: 'herdr' });

describe('agent starts a child', () => {
  it.each(['pi', 'claude', 'codex'] as const)(
    'a %s child gets its task as launches/<id>.task.md, a durable record and an item for its owner',
    async (kind) => {
      const result = await agentCli(suite, [
        '--kind',
        kind,
        '--name',
        `child-${kind}`,
        '--json',
        '--message',
        quickTask(),
      ]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      const doc = AgentOutputSchema.parse(JSON.parse(result.stdout));
      if (doc.queued !== false) throw new Error('queued');
      expect(doc).toMatchObject({ name: `child-${kind}`, kind, host: 'local', role: 'reader', branch: null });

      const record = await onlyRecord(suite);
      expect(record).toMatchObject({
        id: doc.launch,
        state: 'started',
        attempts: 1,
        pane: doc.pane,
        terminal_id: doc.terminal_id,
        owner: suite.caller.pane,
        cwd: suite.scratch,
      });
      const task = await readFile(record.task_file, 'utf8');
      expect(task).toContain('Do the thing.');
      const launch = await waitForNewLaunch(suite);
      // The task travels as a file: its text is never on the launch line.
      expect(launch.argv.join(' ')).not.toContain('Do the thing.');
      expect(launch.task_files).toContain(record.task_file);
      expect(launch).toMatchObject({ herdr_pane_id: doc.pane, cwd: suite.scratch });
      if (kind !== 'codex') expect(launch.argv.join(' ')).toContain(record.contract_file);

      const [item] = await items(suite);
      expect(item).toMatchObject({
        id: doc.item,
        kind: 'agent',
        name: `child-${kind}`,
        harness: kind,
        role: 'reader',
        launch: doc.launch,
        pane: doc.pane,
        terminal_id: doc.terminal_id,
        owner: suite.caller.pane,
        closed_ms: null,
      });
      const pane = (await ok(suite.herdr, 'pane.get', { pane_id: doc.pane })).pane;
      expect(pane).toMatchObject({ workspace_id: suite.caller.workspace, agent: kind });
    },
  );

  it('returns once Herdr sees the child run, not at the end of its first turn', async () => {
    // Herdr calls a child ready only at its first idle: for one that works on its task at once, the
    // end of its first turn. The start is confirmed by the first try, while the child still works.
    const long = `Work for a long while.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps: [{ hang: true }] })}\n\`\`\`\n`;
    const result = await agentCli(suite, ['--kind', 'claude', '--name', 'long-turn', '--message', long]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const record = await onlyRecord(suite);
    expect(record).toMatchObject({ state: 'started', attempts: 1, error: null });
    expect(record.try_errors).toBeUndefined();
    const { agent } = await ok(suite.herdr, 'agent.get', { target: 'long-turn' });
    expect(agent).toMatchObject({ agent: 'claude', agent_status: 'working' });
    expect(agent.interactive_ready).toBeUndefined();
  });

  it('reads the task from --message-file - (stdin), kept byte for byte but without escapes', async () => {
    const text = `Task with $(touch /tmp/pwned) ; 'quotes' and \u001b[31mred\u001b[0m\n${quickTask()}`;
    const result = await agentCli(suite, ['--kind', 'pi', '--name', 'stdin-child', '--message-file', '-'], {
      input: text,
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^started stdin-child \(pi\) on local, pane w\w+:p\w+\n$/);
    const record = await onlyRecord(suite);
    const task = await readFile(record.task_file, 'utf8');
    expect(task).toContain("Task with $(touch /tmp/pwned) ; 'quotes' and red");
    expect(task).not.toContain('\u001b');
  });
});

describe('profiles and the board', () => {
  it("a child with a profile is Pi without --kind, gets its model, thinking and prompts; the owner's board names harness and model", async () => {
    const dir = join(suite.box.home, '.config', 'dogsled', 'profiles', 'general');
    // The HOME is the file's: the profile goes with the test.
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'prompt.md'), 'Be general.\n');
    await writeFile(
      join(dir, 'profile.json'),
      JSON.stringify({
        model: 'alias/sol',
        thinking: 'medium',
        prompt: 'prompt.md',
        role: 'writer',
        extra: 1,
      }),
    );
    // The spec's own example: `agent --profile general --name api-dups --message-file task.md`.
    const result = await agentCli(suite, [
      '--profile',
      'general',
      '--name',
      'prof',
      '--json',
      '--message',
      quickTask(),
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toMatchObject({
      kind: 'pi',
      profile: 'general',
      model: 'alias/sol',
      role: 'writer',
    });
    const launch = await waitForNewLaunch(suite);
    expect(launch.argv.slice(0, 4)).toEqual(['--model', 'alias/sol', '--thinking', 'medium']);
    expect(launch.argv).toContain(join(dir, 'prompt.md'));
    const board = await runCli(['board', '--json'], suite.env);
    const rows = JSON.parse(board.stdout).groups.flatMap((g: Json) => g.rows);
    expect(rows).toContainEqual(
      expect.objectContaining({ kind: 'agent', title: 'prof', detail: 'pi · alias/sol' }),
    );
  });
});

describe('refusals before any pane exists', () => {
  it(`refuses a launch line of ${LAUNCH_LINE_MAX_BYTES + 1} bytes and creates no pane`, async () => {
    // Codex's line names the state path once: a probe says how long the line is, then the path is
    // cut so that the line is exactly one byte over.
    const before = await paneIds(suite.herdr);
    const attempt = (length: number) =>
      agentCli(suite, ['--kind', 'codex', '--name', 'a', '--message', 'x'], {
        env: { ...suite.env, DOGSLED_STATE: join(suite.box.root, 's'.repeat(length)) },
      });
    const bytesOf = (stderr: string) => Number(/would be (\d+) bytes/.exec(stderr)?.[1]);
    const probe = bytesOf((await attempt(900)).stderr);
    expect(probe).toBeGreaterThan(LAUNCH_LINE_MAX_BYTES + 1);
    const result = await attempt(900 - (probe - (LAUNCH_LINE_MAX_BYTES + 1)));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^dogsled: agent: the launch line would be 961 bytes, over the 960-byte limit: the state path .* set DOGSLED_STATE to a shorter directory\n$/,
    );
    expect(await paneIds(suite.herdr)).toEqual(before);
    expect(await agentCalls(suite.herdr)).toEqual([]);
  });

  it.each([
    ['a name with spaces', ['--name', 'two words']],
    ['a name with $() and ;', ['--name', 'x$(id);y']],
    ['a name with a leading -', ['--name', '-rf']],
    ['a name with an escape', ['--name', 'a\u001b[2Jb']],
    ['an unknown kind', ['--kind', 'vim']],
    ['a profile for claude', ['--kind', 'claude', '--profile', 'general']],
    ['--base without --branch', ['--base', 'main']],
  ])('refuses %s with one escape-free line, exit 2, nothing made', async (_what, extra) => {
    const before = await paneIds(suite.herdr);
    const args = ['--kind', 'pi', '--name', 'ok-name', '--message', 'task', ...extra];
    const result = await agentCli(suite, args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: agent: [^\n]+\n$/);
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stdout).toBe('');
    expect(await paneIds(suite.herdr)).toEqual(before);
    expect(await launchFileNames(suite)).toEqual([]);
    expect(await items(suite)).toEqual([]);
  });

  it('refuses neither --kind nor --profile, naming both, with nothing made', async () => {
    const result = await agentCli(suite, ['--name', 'ok-name', '--message', 'task']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      'dogsled: agent: --kind is required: pi, claude or codex (a --profile means pi)\n',
    );
    expect(await launchFileNames(suite)).toEqual([]);
  });

  it('refuses without Herdr or tmux: agent needs Herdr or tmux', async () => {
    const { HERDR_SOCKET_PATH: _s, HERDR_ENV: _e, HERDR_PANE_ID: _p, ...env } = suite.env;
    const result = await agentCli(suite, ['--kind', 'pi', '--name', 'x', '--message', 't'], {
      env: {
        ...env,
        PATH: (suite.env.PATH ?? '')
          .split(':')
          .filter((dir) => !dir.includes('herdr'))
          .join(':'),
      },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: agent needs Herdr or tmux \(/);
    expect(await launchFileNames(suite)).toEqual([]);
  });
});

describe('Herdr refusals and unknown outcomes', () => {
  it('records a busy-pane refusal as final, closes the empty pane it made and does not retry', async () => {
    const before = await paneIds(suite.herdr);
    await ok(suite.herdr, '_fake.fail_next', { method: 'agent.start', code: 'agent_pane_busy' });
    const result = await agentCli(suite, ['--kind', 'claude', '--name', 'busy', '--message', quickTask()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: agent: cannot start agent busy on local: agent_pane_busy: /);
    const record = await onlyRecord(suite);
    expect(record).toMatchObject({ state: 'refused', attempts: 1 });
    expect(record.error).toMatch(/^agent_pane_busy: /);
    expect(await agentCalls(suite.herdr)).toHaveLength(1);
    // The pane it made is gone again; nothing else was touched.
    expect(await paneIds(suite.herdr)).toEqual(before);
    expect((await items(suite))[0]).toMatchObject({ close_reason: 'launch refused' });
  });

  it('a name already taken is refused the same way', async () => {
    const first = await agentCli(suite, ['--kind', 'pi', '--name', 'twin', '--message', quickTask()]);
    expect(first.code).toBe(0);
    const before = await paneIds(suite.herdr);
    const second = await agentCli(suite, ['--kind', 'pi', '--name', 'twin', '--message', quickTask()]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('agent_name_taken');
    expect(await paneIds(suite.herdr)).toEqual(before);
    expect((await newLaunches(suite)).length).toBe(1);
  });

  it('an unknown outcome keeps the pane and is reconciled on the next try: started once, in the same pane', async () => {
    await ok(suite.herdr, '_fake.fail_next', { method: 'agent.start', malformed: 'close' });
    const result = await agentCli(suite, [
      '--kind',
      'pi',
      '--name',
      'retry',
      '--json',
      '--message',
      quickTask(),
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const doc = JSON.parse(result.stdout);
    const record = await onlyRecord(suite);
    expect(record).toMatchObject({ state: 'started', attempts: 2, error: null, pane: doc.pane });
    const calls = await agentCalls(suite.herdr);
    expect(calls.map((call: Json) => call.params.pane_id)).toEqual([doc.pane, doc.pane]);
    expect(await newLaunches(suite)).toHaveLength(1);
  });

  it('three unknown outcomes fail the launch with the pane kept and its recent output recorded', async () => {
    for (let i = 0; i < 3; i++) {
      await ok(suite.herdr, '_fake.fail_next', {
        method: 'agent.start',
        code: 'internal_error',
        message: `boom ${i}`,
      });
    }
    const result = await agentCli(suite, ['--kind', 'codex', '--name', 'thrice', '--message', quickTask()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot start agent thrice on local: internal_error: ');
    const record = await onlyRecord(suite);
    expect(record).toMatchObject({ state: 'failed', attempts: 3 });
    expect(record.try_errors).toEqual([0, 1, 2].map((i) => `internal_error: herdr agent.start: boom ${i}`));
    expect(await agentCalls(suite.herdr)).toHaveLength(3);
    expect(await paneIds(suite.herdr)).toContain(record.pane);
    expect((await items(suite))[0]).toMatchObject({ close_reason: 'launch failed' });
  });

  it('a child that exits before Herdr sees it run is an unknown outcome; the retry starts it again', async () => {
    // A claude that fails without ever showing a state: Herdr finds its process (it lives a second,
    // ten of Herdr's detection passes), never reads it, and sees it go.
    const bin = join(suite.box.root, 'crashing-bin');
    const runs = join(suite.box.root, 'crashing-runs');
    await mkdir(bin, { recursive: true });
    const script = `#!/bin/sh\necho ran >> '${runs}'\nsleep 1\nexit 3\n`;
    await writeFile(join(bin, 'claude'), script, { mode: 0o755 });
    const env = { ...suite.env, PATH: `${bin}:${suite.env.PATH}` };
    const result = await agentCli(suite, ['--kind', 'claude', '--name', 'crashy', '--message', quickTask()], {
      env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    const record = await onlyRecord(suite);
    expect(record).toMatchObject({ state: 'failed', attempts: 3 });
    expect((await readFile(runs, 'utf8')).trim().split('\n')).toHaveLength(3);
  });
});

describe("the caller's PATH", () => {
  it.each([
    ['placed here', []],
    ['pinned here', ['--host', 'local']],
  ])(
    '%s: a harness not on it is refused before any pane, in one line naming it and the host',
    async (_, pin) => {
      const bare = `${suite.herdr.binDir}:/usr/bin:/bin`;
      const panes = await paneIds(suite.herdr);
      const result = await agentCli(
        suite,
        ['--kind', 'codex', '--name', 'pathless', ...pin, '--message', quickTask()],
        { env: { ...suite.env, PATH: bare } },
      );
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toBe(
        `dogsled: agent: cannot start agent pathless on local: codex is not found on the caller's PATH ${bare}\n`,
      );
      expect(await paneIds(suite.herdr)).toEqual(panes);
      expect(await agentCalls(suite.herdr)).toEqual([]);
      expect(await launchFileNames(suite)).toEqual([]);
      expect(await items(suite)).toEqual([]);
    },
  );

  it("the child's pane gets it, so the harness found there is the one that runs", async () => {
    const bin = join(suite.box.root, 'caller-bin');
    const mark = join(suite.box.root, 'caller-codex-ran');
    await mkdir(bin, { recursive: true });
    const fake = join(FAKE_AGENTS_BIN, 'codex');
    await writeFile(join(bin, 'codex'), `#!/bin/sh\necho ran >> '${mark}'\nexec '${fake}' "$@"\n`, {
      mode: 0o755,
    });
    const env = { ...suite.env, PATH: `${bin}:${suite.env.PATH}` };
    const result = await agentCli(suite, ['--kind', 'codex', '--name', 'pathed', '--message', quickTask()], {
      env,
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await readFile(mark, 'utf8')).trim()).toBe('ran');
  });
});
