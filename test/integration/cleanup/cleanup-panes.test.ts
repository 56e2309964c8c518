// Doctor's panes and workspaces sections and prune's closures against the fake Herdr, whose panes
// are real shells: a shell whose job ended closes, a busy shell stays and is named by its program
// only, the caller's and the focused pane stay, and every closure rechecks the live pane first.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PaneEntrySchema,
  type PanesSection,
  panesSection,
  WorkspaceEntrySchema,
} from '../../../service/cleanup/panes/doctor-section.js';
import type { PaneContext } from '../../../service/cleanup/panes/judge.js';
import {
  closing,
  prunePane,
  pruneWorkspace,
  worktreePanes,
} from '../../../service/cleanup/panes/prune-closures.js';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { probePrompt } from '../../../service/probe/shell-panes.js';
import { statePaths } from '../../../service/state/paths.js';
import { listJobRecords } from '../../../service/state/records/job-records.js';
import type { PaneWatch } from '../../../service/state/records/pane-watch-file.js';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';

import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

let root: string;
let work: string;
let herdr: FakeHerdr;
let port: TerminalPort;
const paths = () => statePaths(join(root, 'state-dir'));

beforeAll(async () => {
  root = await tempDir('dogsled-cleanup-panes-');
  work = join(root, 'work');
  await mkdir(work, { recursive: true });
  await mkdir(paths().jobs, { recursive: true });
  herdr = await startFakeHerdr({ dir: root, env: { HOME: join(root, 'home') } });
  port = await openTerminal({ env: herdr.env, home: join(root, 'home') });
}, 30_000);

afterAll(async () => {
  await herdr?.stop();
  await rm(root, { recursive: true, force: true });
});

interface Made {
  workspace: string;
  pane: string;
  terminal: string;
}

/** A new workspace (the first one created is the active one, so its root pane is focused). */
async function workspace(cwd = work): Promise<Made> {
  const created = await port.createWorkspace({ cwd });
  const made = {
    workspace: created.workspace.workspace_id,
    pane: created.root_pane.pane_id,
    terminal: created.root_pane.terminal_id,
  };
  await settled(made.pane, 'empty');
  return made;
}

async function split(of: Made): Promise<Made> {
  const pane = await port.splitPane({ targetPaneId: of.pane, direction: 'right', cwd: work });
  await settled(pane.pane_id, 'empty');
  return { workspace: of.workspace, pane: pane.pane_id, terminal: pane.terminal_id };
}

function settled(pane: string, kind: 'empty' | 'running') {
  return waitFor(
    `pane ${pane} ${kind}`,
    async () => ((await probePrompt(port, pane)).state.kind === kind ? true : undefined),
    { timeoutMs: 10_000 },
  );
}

async function endedJob(id: string, pane: string): Promise<void> {
  const record: JobRecord = {
    version: 1,
    id,
    command: ['make', 'test', 'SECRET=hunter2'],
    cwd: work,
    host: 'local',
    owner: null,
    pane,
    created_ms: Date.now() - 60_000,
    started_ms: Date.now() - 59_000,
    ended_ms: Date.now() - 1_000,
    exit_code: 0,
    signal: null,
    reason: null,
  };
  await writeFile(join(paths().jobs, `${id}.json`), JSON.stringify(record));
}

async function context(caller: string | null, watch?: PaneWatch): Promise<PaneContext> {
  const { records } = await listJobRecords(paths());
  return { callerPaneId: caller, jobs: records, watch, now: Date.now() };
}

const paneOf = (section: PanesSection, pane: string) => section.panes.find((entry) => entry.pane === pane);
const workspaceOf = (section: PanesSection, id: string) =>
  section.workspaces.find((entry) => entry.workspace === id);

describe('the panes section and prune', () => {
  let focused: Made;
  let caller: Made;
  let callerSibling: Made;
  let jobPane: Made;
  let sleeper: Made;

  beforeAll(async () => {
    focused = await workspace();
    caller = await workspace();
    callerSibling = await split(caller);
    jobPane = await workspace();
    sleeper = await split(jobPane);
    await endedJob('j1', jobPane.pane);
    await endedJob('j2', callerSibling.pane);
    await endedJob('j3', focused.pane);
    await port.runLine(sleeper.pane, 'sleep 30');
    await settled(sleeper.pane, 'running');
  }, 60_000);

  it('reports every pane with its program and a reason, and changes nothing', async () => {
    const section = await panesSection({ port, ...(await context(caller.pane)) });
    expect(section.warnings).toEqual([]);
    for (const entry of section.panes) PaneEntrySchema.parse(entry);
    for (const entry of section.workspaces) WorkspaceEntrySchema.parse(entry);

    expect(paneOf(section, jobPane.pane)).toMatchObject({
      terminal_id: jobPane.terminal,
      workspace: jobPane.workspace,
      cwd: work,
      program: 'sh',
      state: 'removable',
      removable: true,
      reason: 'empty sh prompt; its job j1 ended',
    });
    expect(paneOf(section, sleeper.pane)).toMatchObject({
      program: 'sleep',
      state: 'kept',
      removable: false,
      reason: 'runs sleep',
    });
    expect(paneOf(section, caller.pane)).toMatchObject({ removable: false, reason: "the caller's pane" });
    expect(paneOf(section, focused.pane)).toMatchObject({ removable: false, reason: 'focused in Herdr' });
    expect(paneOf(section, callerSibling.pane)).toMatchObject({ removable: true });
    expect(workspaceOf(section, caller.workspace)).toMatchObject({
      removable: false,
      reason: "the caller's workspace",
    });
    expect(workspaceOf(section, jobPane.workspace)).toMatchObject({
      removable: false,
      reason: `pane ${sleeper.pane} stays: runs sleep`,
    });
    // Arguments of neither the running command nor the job ever appear.
    expect(JSON.stringify(section)).not.toMatch(/sleep 30|hunter2|make/);
    expect((await port.listPanes()).map((pane) => pane.pane_id)).toContain(jobPane.pane);
  });

  it('closes an empty shell whose job ended, and keeps a busy one', async () => {
    const section = await panesSection({ port, ...(await context(caller.pane)) });
    const ended = paneOf(section, jobPane.pane)!;
    const busy = paneOf(section, sleeper.pane)!;
    expect(await prunePane(port, ended, await context(caller.pane))).toEqual({
      kind: 'closed',
      target: jobPane.pane,
      panes: [jobPane.pane],
    });
    expect(await prunePane(port, busy, await context(caller.pane))).toEqual({
      kind: 'skipped',
      target: sleeper.pane,
      reason: 'runs sleep',
    });
    const live = (await port.listPanes()).map((pane) => pane.pane_id);
    expect(live).not.toContain(jobPane.pane);
    expect(live).toContain(sleeper.pane);
    expect(await prunePane(port, ended, await context(caller.pane))).toEqual({
      kind: 'gone',
      target: jobPane.pane,
    });
  });

  it("never closes the caller's or the focused pane, even when the plan said so", async () => {
    const planned = { pane: caller.pane, terminal_id: caller.terminal };
    expect(await prunePane(port, planned, await context(caller.pane))).toEqual({
      kind: 'skipped',
      target: caller.pane,
      reason: "the caller's pane",
    });
    const focusedPlan = { pane: focused.pane, terminal_id: focused.terminal };
    expect(await prunePane(port, focusedPlan, await context(null))).toEqual({
      kind: 'skipped',
      target: focused.pane,
      reason: 'focused in Herdr',
    });
  });

  it('fails a pane whose terminal changed between the plan and the prune', async () => {
    const planned = { pane: sleeper.pane, terminal_id: 'term_planned' };
    const result = await prunePane(port, planned, await context(caller.pane));
    expect(result).toEqual({
      kind: 'failed',
      target: sleeper.pane,
      reason: `identity changed: pane ${sleeper.pane} now holds terminal ${sleeper.terminal}, not term_planned`,
    });
    expect((await port.listPanes()).map((pane) => pane.pane_id)).toContain(sleeper.pane);
  });
});

describe('whole workspaces', () => {
  it('closes a workspace whose every pane qualifies, after a recheck', async () => {
    const made = await workspace();
    const second = await split(made);
    await endedJob('w1', made.pane);
    await endedJob('w2', second.pane);
    const section = await panesSection({ port, ...(await context(null)) });
    const entry = workspaceOf(section, made.workspace)!;
    expect(entry).toMatchObject({ removable: true, reason: 'all 2 panes qualify' });
    expect(entry.panes).toEqual([
      { pane: made.pane, terminal_id: made.terminal },
      { pane: second.pane, terminal_id: second.terminal },
    ]);
    expect(paneOf(section, made.pane)).toMatchObject({ state: 'with_workspace', removable: false });

    expect(await pruneWorkspace(port, entry, await context(null))).toEqual({
      kind: 'closed',
      target: made.workspace,
      panes: [made.pane, second.pane],
    });
    expect((await port.listWorkspaces()).map((w) => w.workspace_id)).not.toContain(made.workspace);
    expect(await pruneWorkspace(port, entry, await context(null))).toEqual({
      kind: 'gone',
      target: made.workspace,
    });
  });

  it('skips a workspace whose pane got busy after the plan', async () => {
    const made = await workspace();
    await endedJob('w3', made.pane);
    const entry = workspaceOf(await panesSection({ port, ...(await context(null)) }), made.workspace)!;
    expect(entry.removable).toBe(true);
    await port.runLine(made.pane, 'sleep 30');
    await settled(made.pane, 'running');
    expect(await pruneWorkspace(port, entry, await context(null))).toEqual({
      kind: 'skipped',
      target: made.workspace,
      reason: `pane ${made.pane} stays: runs sleep`,
    });
  });

  it('skips a workspace where a pane opened after the plan', async () => {
    const made = await workspace();
    await endedJob('w4', made.pane);
    const entry = workspaceOf(await panesSection({ port, ...(await context(null)) }), made.workspace)!;
    const added = await split(made);
    expect(await pruneWorkspace(port, entry, await context(null))).toEqual({
      kind: 'skipped',
      target: made.workspace,
      reason: `pane ${added.pane} opened in it after the plan`,
    });
  });
});

describe('shells without a dogsled record', () => {
  it('close after 15 minutes at an empty prompt as the service saw it, and stay before', async () => {
    const made = await workspace();
    const now = Date.now();
    const watch = (emptyFor: number): PaneWatch => ({
      version: 1,
      panes: {
        [made.terminal]: { pane: made.pane, empty_since_ms: now - emptyFor, observed_ms: now - 2_000 },
      },
    });
    const early = await panesSection({ port, callerPaneId: null, jobs: [], watch: watch(60_000), now });
    expect(workspaceOf(early, made.workspace)).toMatchObject({
      removable: false,
      reason: `pane ${made.pane} stays: empty sh prompt for 60s, no dogsled record; closes after 15m`,
    });
    const late = await panesSection({ port, callerPaneId: null, jobs: [], watch: watch(16 * 60_000), now });
    expect(workspaceOf(late, made.workspace)).toMatchObject({
      removable: true,
      reason: 'empty sh prompt for 16m with no dogsled record',
    });
  });

  it('close at once when their directory disappeared', async () => {
    const doomed = join(root, 'doomed');
    await mkdir(doomed);
    const made = await workspace(doomed);
    await rm(doomed, { recursive: true });
    const section = await panesSection({
      port,
      callerPaneId: null,
      jobs: [],
      watch: undefined,
      now: Date.now(),
    });
    expect(workspaceOf(section, made.workspace)).toMatchObject({
      removable: true,
      cwd: doomed,
      reason: `empty sh prompt; its directory ${doomed} is gone`,
    });
  });
});

describe('a Herdr that stopped answering', () => {
  it('fails each closure with why, and the worktree closure and a close with one line, closing nothing', async () => {
    const gone = await startFakeHerdr({ dir: join(root, 'gone'), env: { HOME: join(root, 'home') } });
    const lost = await openTerminal({ env: gone.env, home: join(root, 'home') });
    const made = await lost.createWorkspace({ cwd: work });
    const pane = made.root_pane;
    await gone.stop();
    const ctx = await context(null);
    const planned = { pane: pane.pane_id, terminal_id: pane.terminal_id };
    expect(await prunePane(lost, planned, ctx)).toMatchObject({
      kind: 'failed',
      target: pane.pane_id,
      reason: expect.stringMatching(/^cannot read Herdr: \S/),
    });
    const whole = { workspace: made.workspace.workspace_id, panes: [planned] };
    expect(await pruneWorkspace(lost, whole, ctx)).toMatchObject({
      kind: 'failed',
      target: made.workspace.workspace_id,
      reason: expect.stringMatching(/^cannot read Herdr: \S/),
    });
    await expect(worktreePanes(lost, work, null)).rejects.toThrow(/^cannot read Herdr's panes: \S/);
    await expect(closing(() => lost.closePane(pane.pane_id))).rejects.toThrow(
      /^cannot close its Herdr panes: \S/,
    );
  });
});
