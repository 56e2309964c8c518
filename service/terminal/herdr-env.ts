// Herdr's environment variables, read here and nowhere else: which pane the caller says it runs in,
// which pane this process itself runs in, whether Herdr is expected on this host, and the pane
// variables a process started outside any pane must not inherit. Everyone else asks these
// functions or the TerminalPort (scripts/check-imports.mjs keeps it so).

import { exists, socketCandidate } from './locate.js';

type Env = NodeJS.ProcessEnv;

/** The variables Herdr sets in each of its panes: where a process runs. */
export const PANE_VARIABLES = ['HERDR_ENV', 'HERDR_PANE_ID', 'HERDR_TAB_ID', 'HERDR_WORKSPACE_ID'] as const;

/**
 * The pane the caller runs in (HERDR_PANE_ID), else null: the owner of what it reserves or starts,
 * and the pane cleanup keeps. It may be a launch-time alias that Herdr still resolves.
 */
export function callerPane(env: Env): string | null {
  return env.HERDR_PANE_ID || null;
}

/** The pane this very process runs in: only when Herdr started it (HERDR_ENV=1), else null. */
export function ownPane(env: Env): string | null {
  return env.HERDR_ENV === '1' ? callerPane(env) : null;
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
