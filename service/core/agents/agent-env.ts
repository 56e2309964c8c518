// What a child agent's launch takes from the environment of whoever asked for it (spec, "Agents and
// profiles"; issue: a queued child launched by the service got the service's PATH, which under the
// shipped systemd unit has no harness). A child runs in a pane whose shell Herdr or tmux starts
// with its own environment; of the caller's, the child gets the variables that decide which harness
// binary runs: PATH. Not the rest: the caller is often a harness itself, whose variables
// (CLAUDECODE, CODEX_*, an owner's HERDR_* or TMUX_PANE) would misdirect the child, and a pane's
// environment reaches tmux and Herdr's CLI on their command lines, where no secret may go. Pure.

/** The caller's variables a child's pane gets, in order. */
export const AGENT_CALLER_VARIABLES = ['PATH'] as const;

export type Env = Readonly<Record<string, string | undefined>>;

/** The part of `env` a child's launch carries: its queued ticket keeps it until admission. */
export function agentCallerEnvironment(env: Env): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of AGENT_CALLER_VARIABLES) {
    const value = env[name];
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/** The binary the harness of `kind` runs as, which Herdr types and tmux starts: its own name. */
export function harnessBinary(kind: string): string {
  return kind;
}
