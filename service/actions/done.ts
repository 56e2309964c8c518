// `dogsled done`, run by a child in its final working turn: refuses while anything of its own is
// still open (children, queued tickets) or its agent worktree has uncommitted changes, then leaves a
// mark in done.json keyed by its launch (or item) id, pane and agent session. The service ends the
// turn at its first idle or done observation, captures the reply, closes the pane and worktree and
// keeps the branch (service/daemon/agents/finish-worker.ts). Nothing is closed here: the turn is still running.

import { realpath } from 'node:fs/promises';
import { AGENT_LOCK_REASON } from '../core/cleanup/loss-rule.js';
import { DogsledError } from '../core/common/errors.js';
import { findCheckoutRoot, readDirty } from '../git/checkout-facts.js';
import { repositoryAt } from '../git/repository.js';
import type { GitIO } from '../git/run-git.js';
import type { HostIO } from '../state/io.js';
import { type DoneMark, updateDoneMarks } from '../state/records/done-marks.js';
import { listLaunchRecords } from '../state/records/launch-files.js';
import { readItems, readQueue } from '../state/records/queue-items.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import { openTerminal } from '../terminal/open.js';
import { needsPane, needsTerminal } from '../terminal/terminal-errors.js';

export async function markDone(io: HostIO): Promise<DoneMark> {
  const pane = callerPane(io.env);
  if (pane === null) throw needsPane('done', 'a child runs it in its own pane');
  const port = await openTerminal({ env: io.env, home: io.home, commandName: 'done', warn: io.warn });
  if (port.kind === 'headless') throw needsTerminal('done', port.why);
  const me = await port.currentPane(pane);
  const [items, queue] = await Promise.all([readItems(io), readQueue(io)]);
  const mine = (owner: string | null) => owner === pane || owner === me.pane_id;
  const children = items.items.filter((item) => item.closed_ms === null && mine(item.owner));
  if (children.length > 0) {
    const names = children.map((item) => item.name ?? item.id).join(', ');
    throw new DogsledError(
      `you still have ${children.length} open child(ren): ${names}; close them or wait for them first`,
    );
  }
  const tickets = queue.tickets.filter(
    (t) => (t.state === 'pending' || t.state === 'admitting') && mine(t.owner),
  );
  if (tickets.length > 0) {
    throw new DogsledError(
      `you still have queued tickets: ${tickets.map((t) => t.id).join(', ')}; cancel them first`,
    );
  }
  const cwd = me.foreground_cwd ?? me.cwd;
  const root = cwd === undefined ? null : await findCheckoutRoot(cwd).catch(() => null);
  const git = { env: io.env };
  if (root !== null && (await isAgentWorktree(root, git)) && (await readDirty(root, git))) {
    throw new DogsledError(
      `your worktree ${root} has uncommitted changes: commit them, then run dogsled done again`,
    );
  }
  const agent = (await port.listAgents()).find((entry) => entry.terminal_id === me.terminal_id) ?? null;
  const item = items.items.find(
    (entry) =>
      entry.closed_ms === null && (entry.terminal_id === me.terminal_id || entry.pane === me.pane_id),
  );
  const launch = (await listLaunchRecords(io.paths)).records
    .filter((record) => record.terminal_id === me.terminal_id)
    .at(-1);
  if (agent === null && item === undefined && launch === undefined) {
    // A bare shell: its mark would wait for the first agent ever started in this pane and close
    // that agent's pane at its first idle.
    throw new DogsledError(
      `no agent runs in ${me.pane_id} and it is no one's child: a child runs done in its final working turn`,
    );
  }
  const now = io.now();
  const mark: DoneMark = {
    id: launch?.id ?? item?.id ?? `pane-${me.terminal_id}`,
    item: item?.id ?? launch?.item ?? null,
    launch: launch?.id ?? null,
    pane: me.pane_id,
    terminal_id: me.terminal_id,
    agent_session: agent?.agent_session?.value ?? null,
    seq: agent?.state_change_seq ?? null,
    marked_ms: now,
    state: 'marked',
    state_ms: now,
    error: null,
  };
  return updateDoneMarks(io, (file) => {
    // A second `done` in the same turn keeps the first mark: the turn it ends is the same.
    const existing = file.marks.find((entry) => entry.id === mark.id && entry.state !== 'closed');
    if (existing !== undefined) return { result: existing };
    return { result: mark, next: { ...file, marks: [...file.marks, mark] } };
  });
}

async function isAgentWorktree(root: string, git: GitIO): Promise<boolean> {
  const repository = await repositoryAt(root, git).catch(() => null);
  if (repository === null) return false;
  const real = await realpath(root).catch(() => root);
  for (const worktree of repository.worktrees) {
    if (worktree.main || worktree.locked !== AGENT_LOCK_REASON) continue;
    if ((await realpath(worktree.path).catch(() => worktree.path)) === real) return true;
  }
  return false;
}
