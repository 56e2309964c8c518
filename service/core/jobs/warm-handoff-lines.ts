// The lines a job pane's wrapper (`exec ID` in a Herdr or tmux pane) and the supervisor `serve`
// keeps warm say to each other on supervisor.sock when the wrapper hands the warm one its job
// instead of starting a supervisor of its own (jobs/supervisor/exec-handoff.ts, exec-warm.ts).
// A launch's claim is `JOB_ID\n`; a pane's claim is `pane {JSON}\n`, carrying what a supervisor
// the wrapper started would have inherited from it: the wrapper's whole environment (the pane's
// variables, HERDR_SOCKET_PATH, TMUX..., and the job's environment when no jobs/ID.env was saved)
// and the `-- CMD` it was given. Every later line is one of a few words: from the supervisor,
// `ready` (it would take the job), `ok PID` (it claimed the job), `warn JSON` (a line for the
// pane's stderr), then `exit N` or `error JSON` (its end); from the wrapper, `go` (it has not given
// up on the supervisor: claim the job) and `term` (SIGTERM, SIGINT: end the job). The `go` closes
// a race: a supervisor that stalled past the wrapper's wait must not claim a job whose wrapper has
// started a supervisor of its own; once the wrapper said `go` it waits for that supervisor alone.
// Every string travels as JSON, so no newline or escape in a variable can cut or forge a line.

/** A job id as a claim may name it (state/job-records.ts's ids, bounded). */
const JOB_ID = /^j_[A-Za-z0-9_-]{1,60}$/;
/** A pane's claim is at most this long: an environment past it is not handed off (the wrapper starts its own). */
export const PANE_CLAIM_MAX_BYTES = 1024 * 1024;
/** A line the supervisor sends after its `ok`: a warning is one line, clipped where it is made. */
export const HANDOFF_LINE_MAX_BYTES = 64 * 1024;

export interface PaneClaim {
  id: string;
  /** What `exec ID -- CMD` named, else null (the record's own command). */
  command: string[] | null;
  /** The wrapper's environment. */
  env: Record<string, string>;
}

const PANE_PREFIX = 'pane ';

/** The claim line (newline included). */
export function paneClaimLine(claim: PaneClaim): string {
  return `${PANE_PREFIX}${JSON.stringify(claim)}\n`;
}

/** Whether a claim's first bytes say it is a pane's (so it may be longer than a launch's). */
export function isPaneClaim(start: string): boolean {
  return start.startsWith(PANE_PREFIX);
}

/** The pane's claim of a line (without its newline), or undefined for anything not exactly one. */
export function parsePaneClaim(line: string): PaneClaim | undefined {
  if (!isPaneClaim(line)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line.slice(PANE_PREFIX.length));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, command, env } = value as Record<string, unknown>;
  if (typeof id !== 'string' || !JOB_ID.test(id)) return undefined;
  if (command !== null && !(Array.isArray(command) && command.every((arg) => typeof arg === 'string')))
    return undefined;
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return undefined;
  const copy: Record<string, string> = {};
  for (const [key, text] of Object.entries(env)) {
    // A name with `=` or a NUL, or a value with a NUL, cannot be an environment entry.
    if (typeof text !== 'string' || key === '' || /[=\0]/.test(key) || text.includes('\0')) return undefined;
    copy[key] = text;
  }
  return { id, command: command === null ? null : [...(command as string[])], env: copy };
}

/** What the warm supervisor says on a pane's connection, after the claim. */
export type SupervisorLine =
  | { kind: 'ready' }
  | { kind: 'ok'; pid: number }
  | { kind: 'refused' }
  | { kind: 'warn'; text: string }
  | { kind: 'exit'; code: number }
  | { kind: 'error'; message: string; exitCode: number; hint: string | undefined };

/** The line (newline included). */
export function supervisorLine(line: SupervisorLine): string {
  switch (line.kind) {
    case 'ready':
      return 'ready\n';
    case 'ok':
      return `ok ${line.pid}\n`;
    case 'refused':
      return 'refused\n';
    case 'warn':
      return `warn ${JSON.stringify(line.text)}\n`;
    case 'exit':
      return `exit ${line.code}\n`;
    case 'error':
      return `error ${JSON.stringify({ message: line.message, exitCode: line.exitCode, hint: line.hint ?? null })}\n`;
  }
}

/** One line (without its newline) the supervisor said, or undefined for anything else. */
export function parseSupervisorLine(line: string): SupervisorLine | undefined {
  if (line === 'refused') return { kind: 'refused' };
  if (line === 'ready') return { kind: 'ready' };
  const space = line.indexOf(' ');
  if (space < 0) return undefined;
  const word = line.slice(0, space);
  const rest = line.slice(space + 1);
  if (word === 'ok' || word === 'exit') {
    if (!/^\d{1,10}$/.test(rest)) return undefined;
    const n = Number(rest);
    if (word === 'ok') return n > 0 ? { kind: 'ok', pid: n } : undefined;
    return n <= 255 ? { kind: 'exit', code: n } : undefined;
  }
  const value = jsonOf(rest);
  if (word === 'warn') return typeof value === 'string' ? { kind: 'warn', text: value } : undefined;
  if (word !== 'error' || typeof value !== 'object' || value === null) return undefined;
  const { message, exitCode, hint } = value as Record<string, unknown>;
  if (typeof message !== 'string' || !Number.isInteger(exitCode)) return undefined;
  const code = exitCode as number;
  if (code < 0 || code > 255) return undefined;
  return { kind: 'error', message, exitCode: code, hint: typeof hint === 'string' ? hint : undefined };
}

/** The wrapper's word once: it still waits for this supervisor, which may now claim the job. */
export const GO_LINE = 'go\n';

/** The wrapper's one word: end the job (it was sent SIGTERM or SIGINT). */
export const TERMINATE_LINE = 'term\n';

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
