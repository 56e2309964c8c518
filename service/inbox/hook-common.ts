// What every harness hook shares: the harnesses and events it accepts, whether this host has a state
// directory at all, and the caller's inbox location (in tmux from its variables, else remembered,
// else through Herdr with a short per-call deadline).
// Kept apart so each hook loads only the code of its own path (hooks run on every prompt and stop).

import { stat } from 'node:fs/promises';
import type { ProcessIO } from '../state/io.js';
import { callerPane, ownPane } from '../terminal/herdr/herdr-env.js';
import { ownTmuxTerminal, tmuxCallerPane } from '../terminal/tmux/tmux-env.js';
import type { Whereabouts } from './whereabouts.js';

export const HOOK_HARNESSES = ['claude', 'codex', 'pi'] as const;
export type HookHarness = (typeof HOOK_HARNESSES)[number];
export const INBOX_HOOK_EVENTS = ['Stop', 'UserPromptSubmit'] as const;
export type InboxHookEvent = (typeof INBOX_HOOK_EVENTS)[number];
export const CONTEXT_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit'] as const;
/** Events only `hook state` takes: they say what the agent is doing and ask for nothing. */
export const STATE_HOOK_EVENTS = ['Notification'] as const;

/** Herdr calls inside a hook get this long each; the whole hook has five seconds. */
const HOOK_CALL_MS = 2_000;

/** The JSON object a harness sent on stdin, or undefined while it is not one (yet). */
export function hookInput(stdin: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(stdin) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A host where dogsled never ran has nothing to read, and a hook creates nothing there. */
export async function hasStateDir(io: ProcessIO): Promise<boolean> {
  try {
    return (await stat(io.paths.dir)).isDirectory();
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
