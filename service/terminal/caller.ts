// Who is calling, as Herdr told the process that runs in one of its panes: the launch-time pane id
// (HERDR_PANE_ID, an alias that keeps resolving after the pane moves), whether this process runs
// inside a Herdr pane at all, for a plugin pane the context Herdr opened it with, and the Herdr
// config file the theme comes from. Only this module and the rest of service/terminal read HERDR_*.

import { join } from 'node:path';
import { herdrConfigDir } from './locate.js';

/** HERDR_PANE_ID, else null. */
export function callerPaneId(env: NodeJS.ProcessEnv): string | null {
  return env.HERDR_PANE_ID || null;
}

/** The caller's pane, or undefined outside Herdr. */
export function callerPane(env: NodeJS.ProcessEnv): string | undefined {
  return callerPaneId(env) ?? undefined;
}

/** HERDR_ENV=1 with a pane id: a harness hook with neither has nothing to read or add. */
export function inHerdrPane(env: NodeJS.ProcessEnv): boolean {
  return env.HERDR_ENV === '1' && callerPaneId(env) !== null;
}

/** Herdr's config.toml: `$HERDR_CONFIG_PATH`, else `<herdr config dir>/config.toml` (CONTRACT §7). */
export function herdrConfigPath(env: NodeJS.ProcessEnv, home: string): string {
  return env.HERDR_CONFIG_PATH || join(herdrConfigDir(env, home), 'config.toml');
}

/**
 * The pane a plugin pane was opened beside (HERDR_PLUGIN_CONTEXT_JSON's focused_pane_id; a split gets
 * its target's context), or undefined when Herdr gave none or it does not parse.
 */
export function pluginContextPane(env: NodeJS.ProcessEnv): string | undefined {
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
