// The typed failures of the terminal layer. Herdr's own error codes pass through by name; failures
// the adapter detects itself (no server, a reply that is not one JSON line, a client deadline, a
// backend without Herdr) get codes of their own. Codes the product does not react to keep their raw
// spelling in `herdrCode` under the code `other`.

import { DogsledError } from '../core/common/errors.js';

/** agent.start refusals that happen before anything is typed into the pane (CONTRACT §4.3). */
const FINAL_REFUSAL_CODES = [
  'invalid_agent_name',
  'unsupported_agent_kind',
  'invalid_agent_argument',
  'agent_name_taken',
  'agent_pane_not_found',
  'agent_pane_busy',
  'agent_pane_unavailable',
  'invalid_agent_timeout',
  'agent_start_input_failed',
] as const;

/** Herdr error codes the product reacts to (server- and CLI-made), as Herdr spells them. */
export const HERDR_CODES = [
  ...FINAL_REFUSAL_CODES,
  // the readiness loop (CONTRACT §4.4; made by the client)
  'agent_start_failed',
  'agent_kind_mismatch',
  'agent_name_not_found',
  // agents after start
  'agent_not_found',
  'agent_target_ambiguous',
  'agent_not_running',
  'agent_not_idle',
  'agent_not_ready',
  'agent_launch_pending',
  // layout
  'workspace_not_found',
  'tab_not_found',
  'pane_not_found',
  'no_active_workspace',
  'no_active_pane',
  'confirmation_required',
  'invalid_env',
  'pane_send_failed',
  // worktrees
  'not_git_worktree',
  'worktree_not_found',
  'linked_worktree_source',
  'worktree_open_failed',
  // plugins
  'plugin_not_found',
  'plugin_disabled',
  'plugin_pane_not_found',
  // metadata
  'invalid_metadata_token',
  'metadata_token_limit',
  // general
  'invalid_request',
  'invalid_params',
  'server_unavailable',
  'internal_error',
  'ui_busy',
  'timeout',
  'protocol_mismatch',
] as const;

/** Codes made by the adapter itself. */
export const ADAPTER_CODES = [
  /** No server: socket missing or refused, CLI reports server_not_running, binary missing. */
  'unreachable',
  /** The reply was not one well-formed envelope: malformed, truncated, closed without reply. */
  'protocol',
  /** This backend has no Herdr (headless) or lacks the verb (CLI without an equivalent command). */
  'needs_herdr',
  /** The herdr CLI rejected its arguments (exit 2, plain text). */
  'usage',
  /** Any other Herdr code; the raw spelling is in `herdrCode`. */
  'other',
] as const;

export type HerdrCode = (typeof HERDR_CODES)[number];
export type TerminalErrorCode = HerdrCode | (typeof ADAPTER_CODES)[number];

const KNOWN = new Set<string>(HERDR_CODES);

const FINAL_REFUSALS = new Set<TerminalErrorCode>(FINAL_REFUSAL_CODES);

export interface TerminalErrorOptions {
  /** The Herdr method (or CLI verb) that failed, e.g. `agent.start`. */
  method?: string;
  /** Herdr's code as sent, kept when it maps to `other` or `unreachable`. */
  herdrCode?: string;
  hint?: string;
  cause?: unknown;
}

export class TerminalError extends DogsledError {
  readonly code: TerminalErrorCode;
  readonly method: string | undefined;
  readonly herdrCode: string | undefined;

  constructor(code: TerminalErrorCode, message: string, options: TerminalErrorOptions = {}) {
    super(message, { hint: options.hint, cause: options.cause });
    this.name = 'TerminalError';
    this.code = code;
    this.method = options.method;
    this.herdrCode = options.herdrCode;
  }
}

/** A TerminalError for a code Herdr sent, mapping unknown codes to `other`. */
export function fromHerdrCode(herdrCode: string, message: string, method: string): TerminalError {
  if (herdrCode === 'server_not_running') {
    return new TerminalError('unreachable', message, { method, herdrCode });
  }
  const code: TerminalErrorCode = KNOWN.has(herdrCode) ? (herdrCode as HerdrCode) : 'other';
  return new TerminalError(code, message, { method, herdrCode });
}

export function isTerminalError(value: unknown, code?: TerminalErrorCode): value is TerminalError {
  return value instanceof TerminalError && (code === undefined || value.code === code);
}

/**
 * Whether an agent start failed before anything was typed into the pane, so the refusal is final:
 * no retry, and the empty pane can be closed. A CLI usage error (exit 2) is final too: the herdr
 * CLI rejects its arguments before it contacts the server.
 */
export function isFinalRefusal(error: unknown): boolean {
  if (!(error instanceof TerminalError)) return false;
  if (FINAL_REFUSALS.has(error.code)) return true;
  return error.code === 'usage' && error.method === 'agent.start';
}

/** What only Herdr does (plugin panes, its own CLI): `<command> needs Herdr (<why>)`. */
export function needsHerdr(command: string, why: string, method?: string): TerminalError {
  return new TerminalError('needs_herdr', `${command} needs Herdr (${why})`, { method });
}

/**
 * The headless refusal: neither Herdr nor tmux was found, and either would do, so the message
 * names both (`<command> needs Herdr or tmux (<why>)`); the CLI prints `dogsled: ` in front.
 */
export function needsTerminal(command: string, why: string, method?: string): TerminalError {
  return new TerminalError('needs_herdr', `${command} needs Herdr or tmux (${why})`, { method });
}

/** A command that acts from the caller's pane, run in none: `<command> needs a Herdr or tmux pane (...)`. */
export function needsPane(command: string, hint?: string): TerminalError {
  const why = 'neither HERDR_PANE_ID nor TMUX_PANE is set';
  return new TerminalError(
    'needs_herdr',
    `${command} needs a Herdr or tmux pane (${why})${hint ? `: ${hint}` : ''}`,
  );
}
