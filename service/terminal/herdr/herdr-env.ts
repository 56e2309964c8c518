// Herdr's environment variables, read here and nowhere else: the pane the caller says it runs in,
// the pane and socket of the Herdr this process runs inside, whether Herdr is expected on this
// host, a plugin pane's context, Herdr's config file, and the pane variables a process started
// outside any pane must not inherit. Everyone else asks these functions or the TerminalPort
// (scripts/check-imports.mjs).

import { join } from 'node:path';
import { tmuxCallerPane } from '../tmux/tmux-env.js';
import { exists, herdrConfigDir, socketCandidate } from './locate.js';

type Env = NodeJS.ProcessEnv;

/** The variables Herdr sets in each of its panes: where a process runs. */
export const PANE_VARIABLES = ['HERDR_ENV', 'HERDR_PANE_ID', 'HERDR_TAB_ID', 'HERDR_WORKSPACE_ID'] as const;

/**
 * The pane the caller runs in (HERDR_PANE_ID; empty counts as unset; inside tmux TMUX_PANE), else null: the owner of what
 * it reserves or starts, and the pane cleanup keeps. It may be a launch-time alias (it stays one
 * after the pane moves) that Herdr still resolves.
 */
export function callerPane(env: Env): string | null {
  return env.HERDR_PANE_ID || tmuxCallerPane(env);
}

/**
 * The pane this very process runs in: only when Herdr started it (HERDR_ENV=1), else null. A
 * harness hook outside any pane has nothing to read or add.
 */
export function ownPane(env: Env): string | null {
  return env.HERDR_ENV === '1' ? env.HERDR_PANE_ID || null : null;
}

/**
 * The pane a harness hook runs in: a Herdr pane (ownPane), else the tmux pane tmux started it in
 * (TMUX and TMUX_PANE), else null. The owner its hook reads and reports for.
 */
export function hookPane(env: Env): string | null {
  return ownPane(env) ?? tmuxCallerPane(env);
}

/** The socket of the Herdr this process runs inside (HERDR_ENV=1 with HERDR_SOCKET_PATH), else null. */
export function ownSocket(env: Env): string | null {
  return env.HERDR_ENV === '1' && env.HERDR_SOCKET_PATH ? env.HERDR_SOCKET_PATH : null;
}

/** `env`'s pane variables, each key present (undefined when unset), for the job environment rule. */
export function paneVariables(env: Env): Record<string, string | undefined> {
  return Object.fromEntries(PANE_VARIABLES.map((key) => [key, env[key]]));
}

/** Every pane variable emptied: added to the environment of a process that runs in no pane. */
export function outsideAnyPane(): Record<string, string> {
  return Object.fromEntries(PANE_VARIABLES.map((key) => [key, '']));
}

/**
 * Herdr should be there when this process was started inside it or pointed at it, or its socket
 * exists: then a Herdr that cannot be read may have live panes. Otherwise there simply is none.
 */
export async function herdrExpected(env: Env, home: string): Promise<boolean> {
  if (env.HERDR_SOCKET_PATH || env.HERDR_PANE_ID || env.HERDR_ENV === '1') return true;
  return exists(socketCandidate(env, home).path);
}

/** Herdr's config.toml: `$HERDR_CONFIG_PATH`, else `<herdr config dir>/config.toml` (CONTRACT §7). */
export function herdrConfigPath(env: Env, home: string): string {
  return env.HERDR_CONFIG_PATH || join(herdrConfigDir(env, home), 'config.toml');
}

/**
 * The pane a plugin pane was opened beside (HERDR_PLUGIN_CONTEXT_JSON's focused_pane_id; a split gets
 * its target's context), or undefined when Herdr gave none or it does not parse.
 */
export function pluginContextPane(env: Env): string | undefined {
  const text = env.HERDR_PLUGIN_CONTEXT_JSON;
  if (!text) return undefined;
  try {
    const context = JSON.parse(text) as { focused_pane_id?: unknown };
    return typeof context.focused_pane_id === 'string' && context.focused_pane_id !== ''
      ? context.focused_pane_id
      : undefined;
  } catch {
    return undefined;
  }
}
