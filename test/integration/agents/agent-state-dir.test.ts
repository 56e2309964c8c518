// A child finds its launcher's state dir when it is not the one its panes inherit: Herdr's panes here
// carry a decoy DOGSLED_STATE, so a child whose pane does not get the launcher's own (a `--branch`
// worktree opened by `worktree open`, which takes no environment; a repository's workspace opened for
// a child working in its main checkout) would mark `dogsled done` in the decoy, or be refused there.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DoneFileSchema } from '../../../service/state/records/done-marks.js';

import { freshRepo, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { waitFor } from '../../helpers/wait.js';
import { agentCli, agentSuite, doneTask, type Json, ok, paneIds } from './agent-fixtures.js';

const suite = agentSuite({ paneState: 'decoy-state' });
let repo: Repo;

beforeEach(async () => {
  repo = await freshRepo();
});
afterAll(removeScenarios);

async function marks(state: string): Promise<Json[]> {
  const text = await readFile(join(state, 'done.json'), 'utf8').catch(() => null);
  return text === null ? [] : DoneFileSchema.parse(JSON.parse(text)).marks;
}

describe("a child's own dogsled done", () => {
  it.each([
    ['a --branch child in its worktree', ['--branch', 'feat/state'], true],
    ['a child in the main checkout of a repository no workspace showed', [], false],
  ])(
    '%s marks its launcher state dir',
    async (_what, extra, commit) => {
      const before = await paneIds(suite.herdr);
      const started = await agentCli(
        suite,
        ['--kind', 'pi', '--name', 'stateful', ...extra, '--json', '--message', doneTask('Done.', commit)],
        { cwd: repo.main },
      );
      expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
      const doc = JSON.parse(started.stdout);
      const mark = await waitFor(
        "the child's done mark in the launcher's state dir",
        async () => (await marks(suite.box.state)).find((m) => m.pane === doc.pane),
        { timeoutMs: 30_000 },
      );
      expect(mark).toMatchObject({ item: doc.item });
      expect(await marks(join(suite.box.root, 'decoy-state'))).toEqual([]);
      // No empty shell is left beside the child: only its own pane is new (and an anchor, if any).
      const pane = (await ok(suite.herdr, 'pane.get', { pane_id: doc.pane })).pane;
      const added = (await paneIds(suite.herdr)).filter((id) => !before.includes(id));
      const inChildWorkspace = [];
      for (const id of added) {
        const other = (await ok(suite.herdr, 'pane.get', { pane_id: id })).pane;
        if (other.workspace_id === pane.workspace_id) inChildWorkspace.push(id);
      }
      if (extra.length > 0) expect(inChildWorkspace).toEqual([doc.pane]);
    },
    60_000,
  );
});
