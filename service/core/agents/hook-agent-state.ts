// An agent's state where no multiplexer detects it (tmux): what its harness's hooks last said,
// corrected by its transcript. A prompt submitted means working; a stop or a session start means
// idle; Claude Code's Notification of a permission prompt or a question dialog means blocked (its
// "waiting for your input" notice means idle). A transcript written after the last idle or blocked
// report means the agent is working again (a turn the hooks did not see start, or an answered
// prompt), so a quiet agent still stalls by the unchanged stall rule.

export type HookedState = 'working' | 'idle' | 'blocked' | 'unknown';

/** What a Notification hook's stdin says (Claude Code sends both fields; older versions only the message). */
export interface NotificationDetail {
  notification_type?: unknown;
  message?: unknown;
}

const BLOCKING_NOTIFICATIONS: ReadonlySet<string> = new Set(['permission_prompt', 'elicitation_dialog']);

/** The state a hook event reports, or undefined for an event that says nothing about it. */
export function stateOfHookEvent(event: string, detail: NotificationDetail = {}): HookedState | undefined {
  if (event === 'UserPromptSubmit') return 'working';
  if (event === 'Stop' || event === 'SessionStart') return 'idle';
  if (event !== 'Notification') return undefined;
  const type = typeof detail.notification_type === 'string' ? detail.notification_type : null;
  if (type !== null) {
    if (BLOCKING_NOTIFICATIONS.has(type)) return 'blocked';
    return type === 'idle_prompt' ? 'idle' : undefined;
  }
  const message = typeof detail.message === 'string' ? detail.message : '';
  if (/\bpermission\b/i.test(message)) return 'blocked';
  if (/waiting for your input/i.test(message)) return 'idle';
  return undefined;
}

/** Writes this close after a report belong to the turn it reported. */
export const REPORT_SLACK_MS = 2_000;

export function hookedAgentState(
  report: { state: HookedState; at_ms: number },
  transcriptModifiedMs: number | null,
): HookedState {
  if (
    (report.state === 'idle' || report.state === 'blocked') &&
    transcriptModifiedMs !== null &&
    transcriptModifiedMs > report.at_ms + REPORT_SLACK_MS
  ) {
    return 'working';
  }
  return report.state;
}
