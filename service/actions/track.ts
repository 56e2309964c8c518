// `dogsled track HOST PANE --name N`: an existing Herdr pane becomes one of the caller's children, an
// agent item in items.json like a child `agent` started, so the board, `read`, `send` and the
// completion worker see it. Only this host's panes (peers come with their own transport).

import type { Item } from '../core/agents/item-types.js';
import { DogsledError } from '../core/common/errors.js';
import { findHost } from '../core/placement/placement.js';
import { quoted } from '../core/text/clean.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { newId } from '../state/engine/ids.js';
import type { HostIO } from '../state/io.js';
import { updateItems } from '../state/records/queue-items.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import { openTerminal } from '../terminal/open.js';
import { isTerminalError, needsTerminal } from '../terminal/terminal-errors.js';

/** Herdr's agent-name rule (CONTRACT §1.2): a tracked child is known by a name a child could have. */
const NAME = /^[a-z][a-z0-9_-]{0,31}$/;

export async function trackPane(io: HostIO, host: string, paneId: string, name: string): Promise<Item> {
  const known = findHost([LOCAL_HOST], host);
  if (known === undefined) throw new DogsledError(`unknown host ${quoted(host)} (known: ${LOCAL_HOST.id})`);
  if (!NAME.test(name)) {
    throw new DogsledError(
      `--name ${quoted(name)}: a lowercase letter, then at most 31 lowercase letters, digits, - or _`,
    );
  }
  const owner = callerPane(io.env);
  if (owner !== null && owner === paneId) throw new DogsledError(`${paneId} is your own pane`);
  const port = await openTerminal({ env: io.env, home: io.home, commandName: 'track', warn: io.warn });
  if (port.kind === 'headless') throw needsTerminal('track', port.why);
  const pane = await port.getPane(paneId).catch((error: unknown) => {
    if (isTerminalError(error, 'pane_not_found'))
      throw new DogsledError(`no pane ${quoted(paneId)} in Herdr`);
    throw error;
  });
  const item: Item = {
    id: newId('i'),
    kind: 'agent',
    host: known.id,
    pane: pane.pane_id,
    terminal_id: pane.terminal_id,
    owner,
    created_ms: io.now(),
    closed_ms: null,
    close_reason: null,
    job: null,
    ticket: null,
    name,
    harness: pane.agent ?? null,
    profile: null,
    model: null,
    role: null,
    launch: null,
    branch: null,
    worktree: null,
    cwd: pane.foreground_cwd ?? pane.cwd ?? null,
    reply: null,
  };
  return updateItems(io, (items) => {
    const open = items.items.filter((entry) => entry.closed_ms === null);
    const same = open.find((entry) => entry.terminal_id === pane.terminal_id || entry.pane === pane.pane_id);
    if (same !== undefined) {
      throw new DogsledError(
        `pane ${pane.pane_id} is already tracked as item ${same.id}${same.name ? ` (${same.name})` : ''}`,
      );
    }
    const named = open.find((entry) => entry.owner === owner && entry.name === name);
    if (named !== undefined)
      throw new DogsledError(`you already have a child named ${name} (item ${named.id})`);
    return { result: item, next: { ...items, items: [...items.items, item] } };
  });
}
