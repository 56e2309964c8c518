// An agent's state where no multiplexer detects it (tmux): what its harness's hooks last said,
// corrected by its transcript. A prompt submitted means working; a stop or a session start means
// idle. A transcript written after the last idle report means the agent is working again (a turn
// the hooks did not see start), so a quiet agent still stalls by the unchanged stall rule.

export type HookedState = 'working' | 'idle' | 'blocked' | 'unknown';

/** The state a hook event reports, or undefined for an event that says nothing about it. */
export function stateOfHookEvent(event: string): HookedState | undefined {
  if (event === 'UserPromptSubmit') return 'working';
  if (event === 'Stop' || event === 'SessionStart') return 'idle';
  return undefined;
}

/** Writes this close after a report belong to the turn it reported. */
export const REPORT_SLACK_MS = 2_000;

export function hookedAgentState(
  report: { state: HookedState; at_ms: number },
  transcriptModifiedMs: number | null,
): HookedState {
  if (
    report.state === 'idle' &&
    transcriptModifiedMs !== null &&
    transcriptModifiedMs > report.at_ms + REPORT_SLACK_MS
  ) {
    return 'working';
  }
  return report.state;
}
