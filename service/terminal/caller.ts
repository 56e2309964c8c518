// Who is calling, as Herdr's pane environment says: the caller's launch-time pane id (an alias that
// keeps resolving after the pane moves) and whether this process runs inside a Herdr pane at all.
// The one place outside the backends that reads these variables.

/** HERDR_PANE_ID, else null. */
export function callerPaneId(env: NodeJS.ProcessEnv): string | null {
  return env.HERDR_PANE_ID || null;
}

/** HERDR_ENV=1 with a pane id: a harness hook with neither has nothing to read or add. */
export function inHerdrPane(env: NodeJS.ProcessEnv): boolean {
  return env.HERDR_ENV === '1' && callerPaneId(env) !== null;
}
