// Who is calling, as Herdr told the process that runs in one of its panes: the launch-time pane id
// (HERDR_PANE_ID), for a plugin pane the context Herdr opened it with, and the Herdr config file the
// theme comes from. Only this module and the rest of service/terminal read HERDR_* variables.

import { join } from 'node:path';
import { herdrConfigDir } from './locate.js';

/** Herdr's config.toml: `$HERDR_CONFIG_PATH`, else `<herdr config dir>/config.toml` (CONTRACT §7). */
export function herdrConfigPath(env: NodeJS.ProcessEnv, home: string): string {
  return env.HERDR_CONFIG_PATH || join(herdrConfigDir(env, home), 'config.toml');
}

/** The caller's pane, or undefined outside Herdr. */
export function callerPane(env: NodeJS.ProcessEnv): string | undefined {
  return env.HERDR_PANE_ID || undefined;
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
