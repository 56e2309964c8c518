// Who is calling, as Herdr tells its panes: the pane a command runs in (HERDR_PANE_ID), which owns
// the work it starts. Herdr's variables are read in service/terminal only.

/** The caller's Herdr pane, or null outside Herdr (an empty variable counts as unset). */
export function callerPane(env: NodeJS.ProcessEnv): string | null {
  return env.HERDR_PANE_ID || null;
}
