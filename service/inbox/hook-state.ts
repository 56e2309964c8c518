// A harness hook's second job in tmux, where nothing detects agents: record the state its event
// means (core/hook-agent-state.ts; a Notification's type is on stdin) for the pane's terminal, with
// the session the harness named on stdin (Claude and Codex send session_id and transcript_path).
// Herdr panes need none of it.

import { stateOfHookEvent } from '../core/agents/hook-agent-state.js';
import { writeAgentReport } from '../state/records/agent-reports.js';
import { ownPane } from '../terminal/herdr/herdr-env.js';
import { ownTmuxTerminal } from '../terminal/tmux/tmux-env.js';
import { hookInput } from './hook-common.js';

export async function reportHookState(
  env: NodeJS.ProcessEnv,
  stateDir: string,
  harness: string,
  event: string,
  stdin: string,
  now: number,
): Promise<void> {
  if (ownPane(env) !== null) return;
  const terminal = ownTmuxTerminal(env);
  if (terminal === null) return;
  const sent = hookInput(stdin) ?? {};
  const state = stateOfHookEvent(event, sent);
  if (state === undefined) return;
  await writeAgentReport(stateDir, {
    version: 1,
    terminal_id: terminal,
    state,
    at_ms: now,
    harness,
    session_id: text(sent.session_id),
    transcript_path: absolute(text(sent.transcript_path)),
  });
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && value.length <= 4096 ? value : null;
}

function absolute(path: string | null): string | null {
  return path?.startsWith('/') ? path : null;
}
