// The watchdog's world on real files: a host.json whose agent panes are the fake Herdr's real panes
// (so notifications and pane reads go to Herdr), owner items, job records with logs, and a worker
// built on the sandbox's state with a chosen clock. Nothing of the watchdog is replaced.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentPane } from '../../../service/core/agents/agent-pane-types.js';
import type { Item } from '../../../service/core/agents/item-types.js';
import { WatchdogWorker } from '../../../service/daemon/agents/watchdog-worker.js';
import { statePaths } from '../../../service/state/paths.js';
import type { InboxBox, PaneRef } from '../../helpers/inbox-fixture.js';
import { itemFixture, jobFixture } from '../../helpers/job-fixtures.js';
import { agentPaneFixture, snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

export const T0 = 1_800_000_000_000;
export const MIN = 60_000;

export function agentPane(ref: PaneRef, over: Partial<AgentPane> = {}): AgentPane {
  return agentPaneFixture(ref.pane, 'idle', T0, {
    transcript: '/tmp/t.jsonl',
    transcript_modified: T0,
    terminal_id: ref.terminal,
    completion_seq: 1,
    cwd: '/tmp',
    ...over,
  });
}

export async function writePanes(t: InboxBox, panes: AgentPane[], sample_ms = T0): Promise<void> {
  const snapshot = snapshotFixture({ sample_ms });
  snapshot.probe.agent_panes = panes;
  await writeSnapshot(t.box.state, snapshot);
}

export async function writeItems(t: InboxBox, items: Item[]): Promise<void> {
  await writeFile(join(t.box.state, 'items.json'), JSON.stringify({ version: 1, items }), { mode: 0o600 });
}

export function childItem(owner: PaneRef, child: PaneRef, over: Partial<Item> = {}): Item {
  return itemFixture({
    id: 'i_child',
    kind: 'agent',
    pane: child.pane,
    terminal_id: child.terminal,
    owner: owner.pane,
    created_ms: T0,
    command: undefined,
    ...over,
  });
}

export async function writeEndedJob(
  t: InboxBox,
  owner: PaneRef,
  id: string,
  ended_ms: number,
  log: string,
): Promise<void> {
  const dir = join(t.box.state, 'jobs');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const record = jobFixture({
    id,
    owner: owner.pane,
    command: ['npm', 'test'],
    created_ms: ended_ms - 5 * MIN,
    started_ms: ended_ms - 5 * MIN,
    ended_ms,
    exit_code: 1,
  });
  await writeFile(join(dir, `${id}.json`), JSON.stringify(record), { mode: 0o600 });
  await writeFile(join(dir, `${id}.log`), log, { mode: 0o600 });
}

export function watchdog(
  t: InboxBox,
  now: () => number,
  options: { env?: NodeJS.ProcessEnv; warnings?: string[] } = {},
): WatchdogWorker {
  return new WatchdogWorker({
    paths: statePaths(t.box.state),
    now,
    warn: (line) => {
      if (!options.warnings) throw new Error(`unexpected warning: ${line}`);
      options.warnings.push(line);
    },
    env: options.env ?? t.envOf('w_none:p_none'),
    home: t.box.home,
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the file as JSON, asserted field by field
export async function watchdogFile(t: InboxBox): Promise<any> {
  return JSON.parse(await readFile(join(t.box.state, 'watchdog.json'), 'utf8'));
}

export async function checkIns(t: InboxBox, owner: PaneRef): Promise<Array<{ text: string; ref: string }>> {
  const inbox = await t.inbox(owner);
  return (inbox?.records ?? []).filter((r: { kind: string }) => r.kind === 'check_in');
}

let states = 0;

/**
 * Points `t` at a new, empty state dir of its own; its fake Herdr and panes stay. A file that shares
 * one inbox sandbox (one fake Herdr start instead of one per test) calls it before each test.
 */
export async function freshState(t: InboxBox): Promise<void> {
  const state = join(t.box.root, `state-${++states}`);
  // As a running service leaves it: hooks add nothing on a host whose state dir does not exist.
  await mkdir(state, { mode: 0o700 });
  t.box.state = state;
  t.box.env.DOGSLED_STATE = state;
}
