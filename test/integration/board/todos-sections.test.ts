// The service's todos worker and `dogsled host todos`: todo-lines/<pane-hash>.json of each live
// agent pane (host.json's probe.agent_panes) into todo-sections.json, with every bad publication
// listed as unavailable with its reason, never blocking and never fatal.

import { execFileSync } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TodosWorker } from '../../../service/daemon/agents/todos-worker.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { idHash } from '../../../service/state/records/sidebar-files.js';
import { TodoSectionsSchema } from '../../../service/state/schemas/sidebar-schemas.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { agentPaneFixture, snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => box.cleanup());

function publication(pane: string, extra: Record<string, unknown> = {}) {
  return {
    protocol: 3,
    session: 'sess-1',
    branch: 'b1',
    revision: 7,
    current: 'write tests',
    pane,
    sections: [
      { kind: 'progress', done: 1, total: 2 },
      { kind: 'now', title: 'NOW', lines: ['write tests'] },
    ],
    ...extra,
  };
}

function worker() {
  const warnings: string[] = [];
  const deps = {
    paths: statePaths(box.state),
    policy: DEFAULT_CONFIG,
    now: () => Date.now(),
    warn: (line: string) => warnings.push(line),
    pid: process.pid,
    started_ms: Date.now(),
  };
  return { worker: new TodosWorker(deps), warnings };
}

describe('todo-sections.json', () => {
  it('lists every live agent pane: its todos, or why they are unavailable', async () => {
    const panes = ['w1:p1', 'w1:p2', 'w1:p3', 'w1:p4', 'w1:p5', 'w1:p6', 'w1:p7'];
    const snapshot = snapshotFixture({ sample_ms: Date.now() });
    snapshot.probe.agent_panes = panes.map((pane) =>
      agentPaneFixture(pane, 'working', Date.now(), { agent: 'pi' }),
    );
    await writeSnapshot(box.state, snapshot);
    const dir = join(box.state, 'todo-lines');
    await mkdir(dir, { recursive: true });
    const file = (pane: string) => join(dir, `${idHash(pane)}.json`);
    await writeFile(file('w1:p1'), JSON.stringify(publication('w1:p1')));
    // w1:p2 publishes nothing.
    await mkdir(file('w1:p3'));
    const evil = '\u001b]52;c;cHduZWQ=\u0007\u001b[2J';
    await writeFile(
      file('w1:p4'),
      JSON.stringify(
        publication('w1:p4', {
          current: `go${evil}`,
          sections: [{ kind: 'now', lines: [`a${evil}`, 'x'.repeat(5000)] }],
        }),
      ),
    );
    execFileSync('mkfifo', [file('w1:p5')]);
    await writeFile(file('w1:p6'), JSON.stringify(publication('w9:p9')));
    await writeFile(file('w1:p7'), JSON.stringify(publication('w1:p7', { current: 'y'.repeat(300_000) })));

    const { worker: todos, warnings } = worker();
    expect(await todos.pass()).toBe(true);
    expect(warnings).toEqual([]);
    const written = TodoSectionsSchema.parse(
      JSON.parse(await readFile(join(box.state, 'todo-sections.json'), 'utf8')),
    );
    const byPane = Object.fromEntries(written.panes.map((p) => [p.pane, p]));
    expect(byPane['w1:p1']).toMatchObject({
      available: true,
      terminal_id: 'term_w1_p1',
      session: 'sess-1',
      revision: 7,
      current: 'write tests',
      sections: [
        { kind: 'progress', done: 1, total: 2 },
        { kind: 'now', title: 'NOW', lines: ['write tests'] },
      ],
    });
    expect(byPane['w1:p2']).toMatchObject({ available: false, reason: 'no presentation', sections: [] });
    expect(byPane['w1:p3']).toMatchObject({ available: false, reason: 'it is a directory' });
    expect(byPane['w1:p4']?.current).toBe('go');
    expect(byPane['w1:p4']?.sections[0]?.lines?.[0]).toBe('a');
    expect(byPane['w1:p4']?.sections[0]?.lines?.[1]?.length).toBe(300);
    expect(byPane['w1:p5']).toMatchObject({ available: false, reason: 'it is a FIFO' });
    expect(byPane['w1:p6']).toMatchObject({ available: false, reason: 'published for pane w9:p9' });
    expect(byPane['w1:p7']?.reason).toMatch(/^publication is \d+ bytes, over 262144$/);

    // Nothing changed: nothing is written.
    const before = await stat(join(box.state, 'todo-sections.json'));
    expect(await todos.pass()).toBe(false);
    expect((await stat(join(box.state, 'todo-sections.json'))).mtimeMs).toBe(before.mtimeMs);

    const peer = await runCli(['host', 'todos', '--json'], box.env);
    expect(peer.code).toBe(0);
    expect(TodoSectionsSchema.parse(JSON.parse(peer.stdout)).panes).toEqual(written.panes);
  });

  it('reads an empty document before the service wrote one, and refuses other arguments', async () => {
    const empty = await runCli(['host', 'todos'], box.env);
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual({ version: 1, updated_ms: 0, panes: [] });
    const bad = await runCli(['host', 'todos', '--all'], box.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('dogsled: host todos: takes only --json, got "--all"\n');
  });

  it('reports a todo-sections.json that is a directory through the pass, without stopping', async () => {
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() }));
    await mkdir(join(box.state, 'todo-sections.json'), { recursive: true });
    const { worker: todos } = worker();
    await expect(todos.pass()).rejects.toThrow(/todo-sections\.json/);
  });

  it('reads no presentation for every pane without todo-lines/, and says why when a file is in its place', async () => {
    const snapshot = snapshotFixture({ sample_ms: Date.now() });
    snapshot.probe.agent_panes = ['w1:p1', 'w1:p2'].map((pane) =>
      agentPaneFixture(pane, 'working', Date.now(), { agent: 'pi' }),
    );
    await writeSnapshot(box.state, snapshot);
    const read = async () => {
      await worker().worker.pass();
      const written = TodoSectionsSchema.parse(
        JSON.parse(await readFile(join(box.state, 'todo-sections.json'), 'utf8')),
      );
      return written.panes.map((p) => [p.pane, p.available, p.reason]);
    };
    expect(await read()).toEqual([
      ['w1:p1', false, 'no presentation'],
      ['w1:p2', false, 'no presentation'],
    ]);
    await writeFile(join(box.state, 'todo-lines'), 'not a directory');
    const reasons = await read();
    expect(reasons.map(([pane, available]) => [pane, available])).toEqual([
      ['w1:p1', false],
      ['w1:p2', false],
    ]);
    for (const [, , reason] of reasons) expect(reason).toMatch(/todo-lines/);
  });
});
