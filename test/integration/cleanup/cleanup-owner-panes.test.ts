// The pane rule keeps an owner's pane (spec, "Cleanup": owning dogsled work counts as a dogsled
// record): `prune panes`, a requested sweep in `serve` and a worktree removal never close a plain
// shell that owns open items or queued tickets, or whose terminal's registered inbox reader has
// records waiting, however long it sat at its prompt. The repro: an owner drove `dogsled agent`
// from a plain shell, idle 15 minutes; a requested sweep closed it, and the remote child's final
// reply waiting in its inbox then failed as "its terminal is gone". Fake Herdr (real shells in real
// PTYs), real state files, the real CLI.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PruneReportSchema } from '../../../service/cleanup/doctor-report.js';
import { pendingRecord } from '../../../service/core/inbox/inbox.js';
import { probePrompt } from '../../../service/probe/shell-panes.js';
import { statePaths } from '../../../service/state/paths.js';
import { requestSweep } from '../../../service/sweep/request.js';
import { openTerminal } from '../../../service/terminal/open.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { freshRepo, landedWorktree, removeScenarios, runCliIn } from '../../helpers/git-scenarios.js';
import { itemFixture, ticketFixture } from '../../helpers/job-fixtures.js';
import { waitFor } from '../../helpers/wait.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON documents, asserted field by field
type Json = any;

interface Shell {
  workspace: string;
  pane: string;
  terminal: string;
}

let box: Sandbox;
let herdr: FakeHerdr;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  box = await sandbox();
  await mkdir(box.state, { recursive: true, mode: 0o700 });
  herdr = await startFakeHerdr({ dir: join(box.root, 'herdr'), env: { HOME: box.home } });
  env = { ...box.env, HERDR_SOCKET_PATH: herdr.socketPath, HERDR_ENV: '1', PATH: herdr.env.PATH };
  // The first workspace takes the focus; the ones under test do not.
  await herdr.call('workspace.create', { cwd: box.home });
});

afterEach(async () => {
  await herdr.stop();
  await box.cleanup();
});

afterAll(removeScenarios);

/** A plain shell in a workspace of its own, waited for at its prompt. */
async function shell(cwd = box.home): Promise<Shell> {
  const made = (await herdr.call('workspace.create', { cwd })).result as Json;
  const at: Shell = {
    workspace: made.workspace.workspace_id,
    pane: made.root_pane.pane_id,
    terminal: made.root_pane.terminal_id,
  };
  const port = await openTerminal({ env: herdr.env, home: box.home });
  await waitFor(
    `pane ${at.pane} at its prompt`,
    async () => ((await probePrompt(port, at.pane)).state.kind === 'empty' ? true : undefined),
    { timeoutMs: 10_000 },
  );
  return at;
}

/** The service saw every one of `shells` at an empty prompt for 16 minutes, up to a second ago. */
async function idleFor16Minutes(shells: readonly Shell[]): Promise<void> {
  const now = Date.now();
  const panes = Object.fromEntries(
    shells.map((at) => [
      at.terminal,
      { pane: at.pane, empty_since_ms: now - 16 * 60_000, observed_ms: now - 1_000 },
    ]),
  );
  await writeFile(join(box.state, 'pane-watch.json'), JSON.stringify({ version: 1, panes }));
}

/** An agent item of `owner`: a child on a peer, whose pane there this host never checks. */
async function ownsRemoteChild(owner: Shell): Promise<void> {
  const item = itemFixture({
    id: 'i_farchild0001',
    kind: 'agent',
    host: 'big',
    owner: owner.pane,
    pane: 'w1:p9',
    terminal_id: 'term_far',
    name: 'far',
    command: undefined,
  });
  await writeFile(join(box.state, 'items.json'), JSON.stringify({ version: 1, items: [item] }));
}

/** `at`'s inbox: a registered reader (or none) and records in the given states. */
async function inbox(at: Shell, reader: boolean, states: Array<'pending' | 'delivered'>): Promise<void> {
  const now = Date.now();
  const records = states.map((state, n) => ({
    ...pendingRecord(
      {
        id: `m_reply0000${n}`,
        kind: 'reply',
        sender: { pane: 'w1:p9', terminal: 'term_far', host: 'big', name: 'far' },
        text: 'far finished: Landed it.',
        ref: `reply:i_farchild000${n}`,
      },
      now - 60_000,
    ),
    ...(state === 'delivered' ? { state, delivered_ms: now - 30_000 } : {}),
  }));
  await mkdir(join(box.state, 'inbox'), { recursive: true, mode: 0o700 });
  await writeFile(
    join(box.state, 'inbox', `${at.terminal}.json`),
    JSON.stringify({
      version: 1,
      terminal: at.terminal,
      pane: at.pane,
      reader: reader ? { harness: 'claude', registered_ms: now - 120_000, pane: at.pane } : null,
      records,
    }),
  );
}

async function livePanes(): Promise<string[]> {
  const listed = (await herdr.call('pane.list', {})).result as Json;
  return listed.panes.map((pane: { pane_id: string }) => pane.pane_id);
}

async function workspaceReasons(): Promise<Record<string, { removable: boolean; reason: string }>> {
  const doctor = await runCliIn(box.root, ['doctor', '--json'], env);
  expect(doctor.code, doctor.stderr).toBe(0);
  const report = JSON.parse(doctor.stdout);
  return Object.fromEntries(
    report.workspaces.map((entry: Json) => [
      entry.workspace,
      { removable: entry.removable, reason: entry.reason },
    ]),
  );
}

describe("an owner's pane", () => {
  it('is never closed by prune while it owns open items or tickets or its reader has records waiting', async () => {
    const owner = await shell();
    const reading = await shell();
    const queued = await shell();
    const brokenInbox = await shell();
    const plain = await shell();
    const readAll = await shell();
    await ownsRemoteChild(owner);
    await inbox(reading, true, ['pending', 'delivered']);
    await inbox(readAll, true, ['delivered']);
    await mkdir(join(box.state, 'inbox', `${brokenInbox.terminal}.json`), { recursive: true });
    await writeFile(
      join(box.state, 'queue.json'),
      JSON.stringify({
        version: 1,
        tickets: [ticketFixture({ id: 't_queued000001', kind: 'place', request: null, owner: queued.pane })],
      }),
    );
    await idleFor16Minutes([owner, reading, queued, brokenInbox, plain, readAll]);

    const reasons = await workspaceReasons();
    expect(reasons[owner.workspace]).toEqual({
      removable: false,
      reason: `pane ${owner.pane} stays: it owns 1 open item`,
    });
    expect(reasons[reading.workspace]).toEqual({
      removable: false,
      reason: `pane ${reading.pane} stays: its inbox reader has 1 undelivered record`,
    });
    expect(reasons[queued.workspace]).toEqual({
      removable: false,
      reason: `pane ${queued.pane} stays: it owns 1 queued ticket`,
    });
    expect(reasons[brokenInbox.workspace]?.removable).toBe(false);
    expect(reasons[brokenInbox.workspace]?.reason).toMatch(
      new RegExp(
        `^pane ${brokenInbox.pane} stays: its inbox cannot be read: .*is a directory, not a regular file$`,
      ),
    );
    // A reader alone, with everything delivered, keeps nothing.
    expect(reasons[readAll.workspace]?.removable).toBe(true);
    expect(reasons[plain.workspace]?.removable).toBe(true);

    const pruned = await runCliIn(box.root, ['prune', '--yes', '--json', 'panes'], env);
    expect(pruned.code, pruned.stderr).toBe(0);
    const report = PruneReportSchema.parse(JSON.parse(pruned.stdout));
    expect(report.results.map((result) => result.path).sort()).toEqual(
      [plain.workspace, readAll.workspace].sort(),
    );
    const live = await livePanes();
    for (const kept of [owner, reading, queued, brokenInbox]) expect(live).toContain(kept.pane);
    expect(live).not.toContain(plain.pane);
  });

  it('is never closed by a requested sweep, and the reply waiting there stays deliverable', async () => {
    const owner = await shell();
    const plain = await shell();
    await ownsRemoteChild(owner);
    await inbox(owner, true, ['pending']);
    await idleFor16Minutes([owner, plain]);
    await requestSweep({ paths: statePaths(box.state), now: Date.now, warn: () => {} }, null);

    const once = await runCliIn(box.root, ['serve', '--once'], env);
    expect(once.code, once.stderr).toBe(0);
    expect(once.stderr).toContain(`dogsled serve: sweep: removed workspace ${plain.workspace}`);
    expect(once.stderr).not.toContain(owner.workspace);
    expect(await livePanes()).toContain(owner.pane);
    const kept = JSON.parse(await readFile(join(box.state, 'inbox', `${owner.terminal}.json`), 'utf8'));
    expect(kept.records.map((record: Json) => [record.ref, record.state])).toEqual([
      ['reply:i_farchild0000', 'pending'],
    ]);
    // Its reader still gets the reply.
    const listed = await runCliIn(box.root, ['inbox', 'list', '--json'], {
      ...env,
      HERDR_PANE_ID: owner.pane,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).received.map((record: Json) => record.state)).toEqual(['pending']);
  });

  it('keeps the landed worktree an owner works in: a worktree removal never closes its shell', async () => {
    const repo = await freshRepo();
    const landed = await landedWorktree(repo);
    const owner = await shell(landed);
    await ownsRemoteChild(owner);
    await idleFor16Minutes([owner]);

    const pruned = await runCliIn(box.root, ['prune', '--yes', '--json', 'worktrees'], env);
    expect(pruned.code, pruned.stderr).toBe(0);
    const report = PruneReportSchema.parse(JSON.parse(pruned.stdout));
    expect(report.results).toEqual([]);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        kind: 'worktree',
        path: landed,
        reason: `pane ${owner.pane} stays: it owns 1 open item`,
      }),
    ]);
    expect(await livePanes()).toContain(owner.pane);
  });
});
