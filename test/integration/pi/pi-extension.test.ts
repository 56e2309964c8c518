// The Pi extension's other duties against the fake Pi host: todos published atomically in protocol
// 3 for the service to read and removed at shutdown, one version warning per session, host status
// before each prompt, the stop gate at agent_before_settle, and the /dogsled panel.

import { lstat, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT_TYPE } from '../../../plugins/pi/src/extension.js';
import { TODO_DISPLAY_EVENT, todoLinesFile } from '../../../plugins/pi/src/todos.js';
import { statePaths } from '../../../service/state/paths.js';
import { readTodoLines } from '../../../service/state/records/sidebar-files.js';
import { calls, type PiRun, startPi } from '../../fakes/pi-api/harness.js';
import { runCli } from '../../helpers/cli.js';
import { type InboxBox, inboxBox, type PaneRef } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';

// One sandbox and fake Herdr for the file (a Pi session's start, with its `dogsled mcp`, is most of
// a test's cost, and the box's start the rest): each test's session runs in a pane of its own, so
// what one publishes or claims is keyed apart from the others'. A test that needs a state dir no
// service has written to yet makes its own box.
let t: InboxBox;
const runs: PiRun[] = [];
let sessions = 0;

beforeAll(async () => {
  t = await inboxBox();
});

afterEach(async () => {
  for (const run of runs.splice(0)) await run.fake.shutdown();
});

afterAll(async () => {
  await t?.close();
});

/** A Pi session in a new pane of `box` (the file's unless given), shut down after the test. */
async function pi(
  options: Parameters<typeof startPi>[2] = {},
  box: InboxBox = t,
): Promise<{ run: PiRun; child: PaneRef }> {
  const child = await box.newPane();
  const run = await startPi(box, child, { name: `pi-${++sessions}`, ...options });
  runs.push(run);
  return { run, child };
}

function display(revision: number, current: string) {
  return {
    protocol: 3,
    revision,
    branch: 'main',
    current,
    sections: [
      { kind: 'progress', done: 1, total: 3 },
      { kind: 'now', lines: [current] },
      { kind: 'next', title: 'Next', lines: ['write \x1b[31mtests\x1b[0m', 'land it'] },
    ],
  };
}

describe('todos publication', () => {
  it('writes todo-lines/<pane-hash>.json atomically in protocol 3, newest revision only, and removes it at shutdown', async () => {
    const { run, child } = await pi();
    const file = todoLinesFile(run.deps, child.pane);
    const paths = statePaths(t.box.state);
    run.fake.busEmit(TODO_DISPLAY_EVENT, display(2, 'Fix the \x1b]0;x\x07parser'));
    await waitFor('publication', async () =>
      (await readTodoLines(paths, child.pane)).kind === 'ok' ? true : undefined,
    );
    const published = JSON.parse(await readFile(file, 'utf8'));
    expect(published).toEqual({
      protocol: 3,
      session: 'session-1',
      pane: child.pane,
      revision: 2,
      branch: 'main',
      current: 'Fix the parser',
      sections: [
        { kind: 'progress', done: 1, total: 3 },
        { kind: 'now', lines: ['Fix the parser'] },
        { kind: 'next', title: 'Next', lines: ['write tests', 'land it'] },
      ],
    });
    expect((await lstat(file)).mode & 0o777).toBe(0o600);
    // Many revisions in a row: a reader never sees part of a file, and no temp file stays behind.
    const seen: string[] = [];
    for (let revision = 3; revision < 60; revision++) {
      run.fake.busEmit(TODO_DISPLAY_EVENT, display(revision, `step ${revision}`));
      const read = await readTodoLines(paths, child.pane);
      seen.push(read.kind === 'ok' ? 'ok' : read.kind === 'missing' ? 'missing' : read.reason);
    }
    expect(seen.filter((kind) => kind !== 'ok')).toEqual([]);
    run.fake.busEmit(TODO_DISPLAY_EVENT, display(1, 'an older revision'));
    await waitFor('last', async () =>
      JSON.parse(await readFile(file, 'utf8')).revision === 59 ? true : undefined,
    );
    expect(JSON.parse(await readFile(file, 'utf8')).current).toBe('step 59');
    expect(await readdir(paths.todoLines)).toEqual([file.split('/').at(-1)]);
    expect(run.fake.widgets.get('dogsled')).toBeUndefined();
    await run.fake.shutdown();
    runs.splice(0);
    await expect(lstat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reports a directory in place of its publication on the status line and keeps going', async () => {
    const { run, child } = await pi();
    const file = todoLinesFile(run.deps, child.pane);
    await mkdir(file, { recursive: true });
    run.fake.busEmit(TODO_DISPLAY_EVENT, display(1, 'blocked'));
    await waitFor('a status', () => run.fake.statuses.get('dogsled'));
    expect(run.fake.statuses.get('dogsled')).toMatch(/^todos: /);
    expect((await lstat(file)).isDirectory()).toBe(true);
    await rm(file, { recursive: true });
    run.fake.busEmit(TODO_DISPLAY_EVENT, display(2, 'unblocked'));
    await waitFor('the file', async () =>
      (await lstat(file).catch(() => undefined))?.isFile() ? true : undefined,
    );
  });

  it('ignores a display that is not protocol 3', async () => {
    const { run, child } = await pi();
    run.fake.busEmit(TODO_DISPLAY_EVENT, { ...display(1, 'v2'), protocol: 2 });
    run.fake.busEmit(TODO_DISPLAY_EVENT, { protocol: 3, revision: 'x', sections: [] });
    run.fake.busEmit(TODO_DISPLAY_EVENT, display(1, 'v3'));
    await waitFor(
      'v3',
      async () => await readFile(todoLinesFile(run.deps, child.pane), 'utf8').catch(() => undefined),
    );
    expect(JSON.parse(await readFile(todoLinesFile(run.deps, child.pane), 'utf8')).current).toBe('v3');
  });
});

describe('the version check', () => {
  it('warns once when the extension and dogsled --version differ, however often a session starts', async () => {
    const { run } = await pi({ version: '9.9.9' });
    await run.fake.startSession();
    await run.fake.startSession();
    expect(run.fake.notifications).toEqual([
      {
        message:
          'dogsled: this Pi extension is 9.9.9 but `dogsled --version` says 0.1.0; install the same release of both',
        type: 'warning',
      },
    ]);
    expect((await calls(run)).filter((args) => args === '--version')).toHaveLength(1);
  });

  it('marks dogsled unavailable when the binary is missing', async () => {
    const { run: missing } = await pi({ name: 'missing', env: { DOGSLED_BIN: '/nonexistent/dogsled' } });
    expect(missing.fake.notifications).toEqual([]);
    expect(missing.fake.statuses.get('dogsled')).toMatch(
      /^dogsled unavailable: cannot run \/nonexistent\/dogsled/,
    );
  });
});

describe('prompt context', () => {
  it('adds host status before a prompt once the service has a snapshot, and nothing before', async () => {
    // A state dir no service has written to: the file's box may hold another test's snapshot.
    const fresh = await inboxBox();
    try {
      const { run, child } = await pi({}, fresh);
      expect(await run.fake.emit('before_agent_start', { prompt: 'hi', systemPrompt: '' })).toEqual([
        undefined,
      ]);
      expect(await runCli(['serve', '--once'], fresh.envOf(child))).toMatchObject({ code: 0 });
      const [result] = (await run.fake.emit('before_agent_start', {
        prompt: 'hi',
        systemPrompt: '',
      })) as Array<{
        message: { customType: string; content: string; display: boolean };
      }>;
      expect(result?.message).toMatchObject({ customType: CONTEXT_TYPE, display: false });
      expect(result?.message.content).toMatch(/local/);
      expect(await calls(run)).toContain('hook context --harness pi');
    } finally {
      for (const run of runs.splice(0)) await run.fake.shutdown();
      await fresh.close();
    }
  });
});

// One session inside Herdr serves these tests: none changes what another asserts (each counts or
// looks for calls of its own kind).
describe('a session inside Herdr', () => {
  let run: PiRun;

  beforeAll(async () => {
    run = await startPi(t, await t.newPane(), { name: 'inside' });
  });

  afterAll(async () => {
    await run?.fake.shutdown();
  });

  it('says nothing when the extension and dogsled --version match', async () => {
    expect(run.fake.notifications).toEqual([]);
    expect(await calls(run)).toContain('--version');
  });

  it('runs hook gate only at a completed settle that does not already continue', async () => {
    const gates = async () => (await calls(run)).filter((args) => args === 'hook gate').length;
    const settle = (outcome: string, more: boolean) =>
      run.fake.emit('agent_before_settle', { outcome, entries: [], continue: more });
    expect(await settle('error', false)).toEqual([undefined]);
    expect(await settle('aborted', false)).toEqual([undefined]);
    expect(await settle('completed', true)).toEqual([undefined]);
    expect(await gates()).toBe(0);
    expect(await settle('completed', false)).toEqual([undefined]);
    expect(await gates()).toBe(1);
  });

  it('opens /dogsled on Status, switches tabs with tab, shows the Inbox lines, and closes with escape', async () => {
    const customs = run.fake.customs.length;
    const opened = run.fake.commands.get('dogsled')?.handler('', run.fake.ctx);
    const panel = await waitFor('the panel', () => run.fake.customs[customs]);
    await waitFor('status text', () => (!panel.render(80)[1]?.includes('loading…') ? true : undefined));
    expect(panel.render(80)[0]).toContain('[Status]');
    expect(run.fake.widgets.get('dogsled')).toBeUndefined();
    for (const _ of [1, 2, 3]) panel.handleInput?.('\t');
    expect(panel.render(80)[0]).toContain('[Inbox]');
    await waitFor('the inbox tab', () => (panel.render(80)[1] === '› nothing received' ? true : undefined));
    panel.handleInput?.('\x1b');
    await opened;
    expect(panel.render(80).every((line) => line.length <= 80)).toBe(true);
  });

  it('sets no widget and opens the board with /work', async () => {
    await run.fake.commands.get('work')?.handler('', run.fake.ctx);
    expect(await calls(run)).toContain('board --open');
    expect(run.fake.widgets.get('dogsled')).toBeUndefined();
  });
});

describe('the widget and /work outside Herdr', () => {
  it('draws host meters and work groups, and /work expands it in place', async () => {
    const child = await t.newPane();
    expect(await runCli(['serve', '--once'], t.envOf(child))).toMatchObject({ code: 0 });
    const run = await startPi(t, child, { name: 'outside', env: { HERDR_ENV: '' } });
    runs.push(run);
    // The widget is drawn at once and again when the first status arrives: wait for the hosts.
    const widget = await waitFor('the widget with its hosts', () => {
      const lines = run.fake.widgets.get('dogsled');
      return lines?.[0]?.startsWith('local') ? lines : undefined;
    });
    expect(widget[0]).toMatch(/^local {2}[\d.]+\/\d+ busy {2}mem [█░▏▎▍▌▋▊▉]{8} \S+ free {2}disk \S+/);
    expect(widget.at(-1)).toBe('work: nothing open');
    await run.fake.commands.get('work')?.handler('', run.fake.ctx);
    await run.fake.shortcuts.get('alt+w')?.handler(run.fake.ctx);
    expect(await calls(run)).not.toContain('board --open');
    expect(await calls(run)).toContainEqual(`board --json --owner ${child.pane}`);
  });
});
