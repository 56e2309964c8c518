// The terminal behind the pane a hook runs in, remembered per Herdr server instance, so a hook that
// runs on every prompt and stop neither loads the terminal port nor asks Herdr twice. Sound because
// Herdr never reuses a pane id within one server's life (a moved pane's old id stays its alias) and
// a pane keeps its terminal; a restarted server binds a new socket, whose identity empties the memo.
// Anything doubtful (no socket, an unreadable memo, a pane not in it) asks Herdr.

import type { PaneTerminals } from '../core/inbox/inbox-types.js';
import { guarded } from '../state/engine/guarded.js';
import { readState, updateState } from '../state/engine/store.js';
import type { ProcessIO } from '../state/io.js';
import { PaneTerminalsSchema } from '../state/schemas/inbox-schemas.js';
import { herdrServerIdentity } from '../terminal/herdr/server-identity.js';
import type { Whereabouts } from './whereabouts.js';

/** Panes remembered at most; the least recently seen go first. */
const MAX_PANES = 200;

/** The remembered terminal of `pane` under the running server, or undefined. */
export async function rememberedTerminal(io: ProcessIO, pane: string): Promise<Whereabouts | undefined> {
  const server = herdrServerIdentity(io.env, io.home);
  if (server === undefined) return undefined;
  const file = io.paths.paneTerminals;
  const memo = await guarded(io, file, () => readState(file, PaneTerminalsSchema, io)).catch(() => undefined);
  const hit = memo?.server === server && Object.hasOwn(memo.panes, pane) ? memo.panes[pane] : undefined;
  return hit === undefined ? undefined : { terminal: hit.terminal, pane: hit.pane, name: null };
}

function remembered(
  current: PaneTerminals | undefined,
  server: string,
  pane: string,
  at: Whereabouts,
  now: number,
) {
  const panes = current?.server === server ? { ...current.panes } : {};
  panes[pane] = { terminal: at.terminal, pane: at.pane, seen_ms: now };
  const kept = Object.entries(panes)
    .sort(([, a], [, b]) => b.seen_ms - a.seen_ms)
    .slice(0, MAX_PANES);
  return { ...(current ?? {}), version: 1 as const, server, panes: Object.fromEntries(kept) };
}

/** Remembers what Herdr answered for `pane` under the server it came from. */
export async function rememberTerminal(io: ProcessIO, pane: string, at: Whereabouts): Promise<void> {
  const server = herdrServerIdentity(io.env, io.home);
  if (server === undefined) return;
  const file = io.paths.paneTerminals;
  await guarded(io, file, () =>
    updateState(file, PaneTerminalsSchema, io, (current) => {
      const known = current?.server === server ? current.panes[pane] : undefined;
      if (known?.terminal === at.terminal && known.pane === at.pane) return { result: undefined };
      return { result: undefined, next: remembered(current, server, pane, at, io.now()) };
    }),
  );
}
