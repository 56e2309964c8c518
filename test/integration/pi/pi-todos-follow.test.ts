// Todos follow the active Pi session branch and pi-todo's provider: a display for another branch
// replaces the publication whatever its revision, a session switch, fork or tree move asks pi-todo
// again (the bus does not replay), and pi-todo's release of the display removes the publication.

import { lstat, readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  TODO_DISPLAY_EVENT,
  TODO_RELEASE_EVENT,
  TODO_REQUEST_EVENT,
  todoLinesFile,
} from '../../../plugins/pi/src/todos.js';
import { type PiRun, startPi } from '../../fakes/pi-api/harness.js';
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

const display = (branch: string, revision: number, current: string) => ({
  protocol: 3,
  revision,
  branch,
  current,
  sections: [{ kind: 'now', lines: [current] }],
});

describe('todos publication', () => {
  it('follows the session branch, asks again after a switch, and goes with the provider', async () => {
    const run = await startPi(t, child);
    runs.push(run);
    const file = todoLinesFile(run.deps, child.pane);
    const published = async () => JSON.parse(await readFile(file, 'utf8').catch(() => '{}'));
    run.fake.busEmit(TODO_DISPLAY_EVENT, display('main', 7, 'on main'));
    await waitFor('main', async () => ((await published()).current === 'on main' ? true : undefined));
    // Another branch starts its own revisions: its display replaces main's.
    run.fake.busEmit(TODO_DISPLAY_EVENT, display('feature', 1, 'on feature'));
    await waitFor('feature', async () => ((await published()).current === 'on feature' ? true : undefined));
    expect(await published()).toMatchObject({ branch: 'feature', revision: 1 });
    // An older revision of the same branch is still ignored.
    run.fake.busEmit(TODO_DISPLAY_EVENT, display('feature', 3, 'feature 3'));
    run.fake.busEmit(TODO_DISPLAY_EVENT, display('feature', 2, 'feature 2'));
    await waitFor('feature 3', async () => ((await published()).current === 'feature 3' ? true : undefined));

    const requests: unknown[] = [];
    run.fake.api.events.on(TODO_REQUEST_EVENT, (data) => requests.push(data));
    for (const event of ['session_switch', 'session_fork', 'session_tree']) await run.fake.emit(event);
    expect(requests).toEqual([{ protocol: 3 }, { protocol: 3 }, { protocol: 3 }]);

    run.fake.busEmit(TODO_RELEASE_EVENT, {});
    await waitFor('the publication removed', async () =>
      (await lstat(file).catch(() => undefined)) === undefined ? true : undefined,
    );
  }, 30_000);
});
