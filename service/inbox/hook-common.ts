// What every harness hook shares: the harnesses and events it accepts (core/hook-input.ts), whether
// this host has a state directory at all, and the caller's inbox location (in tmux from its variables, else remembered,
// else through Herdr with a short per-call deadline).
// Kept apart so each hook loads only the code of its own path (hooks run on every prompt and stop).

import { statSync } from 'node:fs';
import type { ProcessIO } from '../state/io.js';
import { callerPane, ownPane } from '../terminal/herdr/herdr-env.js';
import { ownTmuxTerminal, tmuxCallerPane } from '../terminal/tmux/tmux-env.js';
import type { Whereabouts } from './whereabouts.js';

export {
  CONTEXT_HOOK_EVENTS,
  HOOK_HARNESSES,
  type HookHarness,
  hookInput,
  INBOX_HOOK_EVENTS,
  type InboxHookEvent,
  STATE_HOOK_EVENTS,
} from '../core/inbox/hook-input.js';

/** Herdr calls inside a hook get this long each; the whole hook has five seconds. */
const HOOK_CALL_MS = 2_000;

/** A host where dogsled never ran has nothing to read, and a hook creates nothing there. */
export function hasStateDir(io: Pick<ProcessIO, 'paths'>): boolean {
  try {
    return statSync(io.paths.dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The caller's inbox location: remembered from an earlier hook under the same Herdr server, else
 * asked of Herdr (and remembered). Remembering is best effort; asking decides.
 */
export async function hookCaller(io: ProcessIO, command: string): Promise<Whereabouts> {
  // In a tmux pane the terminal is the pane id with the server's pid, both in the environment.
  const tmux = ownPane(io.env) === null ? ownTmuxTerminal(io.env) : null;
  const tmuxPane = tmuxCallerPane(io.env);
  if (tmux !== null && tmuxPane !== null) return { terminal: tmux, pane: tmuxPane, name: null };
  const pane = callerPane(io.env);
  const { rememberedTerminal, rememberTerminal } = await import('./pane-terminals.js');
  const known = pane === null ? undefined : await rememberedTerminal(io, pane);
  if (known !== undefined) return known;
  const { openHerdr, requireCaller } = await import('./whereabouts.js');
  const port = await openHerdr({ env: io.env, home: io.home, commandName: command, timeoutMs: HOOK_CALL_MS });
  const at = await requireCaller(port, io.env, command);
  if (pane !== null) await rememberTerminal(io, pane, at).catch(() => undefined);
  return at;
}
