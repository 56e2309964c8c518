// A harness hook's second job in tmux, where nothing detects agents: record the state its event
// means (core/hook-agent-state.ts) for the pane's terminal, with the session the harness named on
// stdin (Claude and Codex send session_id and transcript_path). Herdr panes need none of it.

import { stateOfHookEvent } from '../core/hook-agent-state.js';
import { writeAgentReport } from '../state/agent-reports.js';
import { inHerdrPane } from '../terminal/caller.js';
import { ownTmuxTerminal } from '../terminal/tmux-env.js';

export async function reportHookState(
  env: NodeJS.ProcessEnv,
  stateDir: string,
  harness: string,
  event: string,
  stdin: string,
  now: number,
): Promise<void> {
  if (inHerdrPane(env)) return;
  const terminal = ownTmuxTerminal(env);
  const state = stateOfHookEvent(event);
  if (terminal === null || state === undefined) return;
  const sent = parse(stdin);
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

function parse(stdin: string): Record<string, unknown> {
  try {
    const value = JSON.parse(stdin) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && value.length <= 4096 ? value : null;
}

function absolute(path: string | null): string | null {
  return path?.startsWith('/') ? path : null;
}
