// The Pi extension's other duties against the fake Pi host: todos published atomically in protocol
// 3 for the service to read and removed at shutdown, one version warning per session, host status
// before each prompt, the stop gate at agent_before_settle, and the /dogsled panel.

import { lstat, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTEXT_TYPE } from '../../../plugins/pi/src/extension.js';
import { TODO_DISPLAY_EVENT, todoLinesFile } from '../../../plugins/pi/src/todos.js';
import { statePaths } from '../../../service/state/paths.js';
import { readTodoLines } from '../../../service/state/records/sidebar-files.js';
import { calls, type PiRun, startPi } from '../../fakes/pi-api/harness.js';
import { runCli } from '../../helpers/cli.js';
import { type InboxBox, inboxPair, type PaneRef } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';

let t: InboxBox;
let child: PaneRef;
const runs: PiRun[] = [];

beforeEach(async () => {
  ({ t, child } = await inboxPair());
});

afterEach(async () => {
  for (const run of runs.splice(0)) await run.fake.shutdown();
  await t.close();
});

async function pi(options: Parameters<typeof startPi>[2] = {}): Promise<PiRun> {
  const run = await startPi(t, child, options);
  runs.push(run);
  return run;
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
    const run = await pi();
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
    const run = await pi();
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
    const run = await pi();
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
    const run = await pi({ version: '9.9.9' });
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

  it('says nothing when they match, and marks dogsled unavailable when the binary is missing', async () => {
    const same = await pi();
    expect(same.fake.notifications).toEqual([]);
    const missing = await pi({ name: 'missing', env: { DOGSLED_BIN: '/nonexistent/dogsled' } });
    expect(missing.fake.notifications).toEqual([]);
    expect(missing.fake.statuses.get('dogsled')).toMatch(
      /^dogsled unavailable: cannot run \/nonexistent\/dogsled/,
    );
  });
});

describe('prompt context and the stop gate', () => {
  it('adds host status before a prompt once the service has a snapshot, and nothing before', async () => {
    const run = await pi();
    expect(await run.fake.emit('before_agent_start', { prompt: 'hi', systemPrompt: '' })).toEqual([
      undefined,
    ]);
    expect(await runCli(['serve', '--once'], t.envOf(child))).toMatchObject({ code: 0 });
    const [result] = (await run.fake.emit('before_agent_start', {
      prompt: 'hi',
      systemPrompt: '',
    })) as Array<{
      message: { customType: string; content: string; display: boolean };
    }>;
    expect(result?.message).toMatchObject({ customType: CONTEXT_TYPE, display: false });
    expect(result?.message.content).toMatch(/local/);
    expect(await calls(run)).toContain('hook context --harness pi');
  });

  it('runs hook gate only at a completed settle that does not already continue', async () => {
    const run = await pi();
    const settle = (outcome: string, more: boolean) =>
      run.fake.emit('agent_before_settle', { outcome, entries: [], continue: more });
    expect(await settle('error', false)).toEqual([undefined]);
    expect(await settle('aborted', false)).toEqual([undefined]);
    expect(await settle('completed', true)).toEqual([undefined]);
    expect((await calls(run)).filter((args) => args === 'hook gate')).toHaveLength(0);
    expect(await settle('completed', false)).toEqual([undefined]);
    expect((await calls(run)).filter((args) => args === 'hook gate')).toHaveLength(1);
  });
});

describe('the /dogsled panel', () => {
  it('opens on Status, switches tabs with tab, shows the Inbox lines, and closes with escape', async () => {
    const run = await pi();
    const opened = run.fake.commands.get('dogsled')?.handler('', run.fake.ctx);
    const panel = await waitFor('the panel', () => run.fake.customs[0]);
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
});

describe('the widget and /work', () => {
  it('outside Herdr draws host meters and work groups, and /work expands it in place', async () => {
    expect(await runCli(['serve', '--once'], t.envOf(child))).toMatchObject({ code: 0 });
    const run = await pi({ env: { HERDR_ENV: '' } });
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

  it('inside Herdr sets no widget and opens the board with /work', async () => {
    const run = await pi();
    await run.fake.commands.get('work')?.handler('', run.fake.ctx);
    expect(await calls(run)).toContain('board --open');
    expect(run.fake.widgets.get('dogsled')).toBeUndefined();
  });
});
