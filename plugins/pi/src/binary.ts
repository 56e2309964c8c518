// Every dogsled call the extension makes: `$DOGSLED_BIN args…` through the action for front ends
// that call the CLI (service/actions/dogsled-call.ts: argv only, a deadline that escalates to SIGKILL, capped output). A missing binary, a non-zero
// exit, a signal or the deadline all come back as `ok: false` with one line saying why; nothing
// here throws, because a failing binary must never break Pi's prompt.

import { runDogsled, SpawnError } from '../../../service/actions/dogsled-call.js';
import { clip, plainLine, stripEscapes } from '../../../service/core/text/clean.js';
import { dogsledBin, type PiDeps } from './deps.js';

/** The five-second budget of every hook (spec: "A hook has a five-second command budget"). */
export const HOOK_MS = 5_000;
/** Routine calls (claim, ack, board, status) get the spec's routine limit. */
export const ROUTINE_MS = 30_000;
/** No answer of dogsled the extension reads comes near this. */
const OUTPUT_MAX = 4 * 1024 * 1024;

export interface CallResult {
  ok: boolean;
  stdout: string;
  /** Why it failed, one escape-free line; empty when ok. */
  why: string;
  /** The binary could not be started at all. */
  missing: boolean;
}

export async function callDogsled(
  deps: PiDeps,
  args: readonly string[],
  timeoutMs: number = ROUTINE_MS,
): Promise<CallResult> {
  const bin = dogsledBin(deps);
  try {
    const result = await runDogsled(bin, args, {
      env: deps.env,
      timeoutMs,
      maxOutputBytes: OUTPUT_MAX,
    });
    const stdout = result.stdout.toString('utf8');
    if (result.exitCode === 0 && !result.truncated) return { ok: true, stdout, why: '', missing: false };
    const said = lastLine(result.stderr.toString('utf8')) || lastLine(stdout);
    const why = result.timedOut
      ? `no answer within ${timeoutMs / 1000} s`
      : result.signal !== null
        ? `killed by ${result.signal}`
        : result.truncated
          ? 'answer too large'
          : said || `exit ${result.exitCode}`;
    return { ok: false, stdout, why, missing: false };
  } catch (error) {
    const code = error instanceof SpawnError ? error.code : undefined;
    return {
      ok: false,
      stdout: '',
      why: `cannot run ${lastLine(bin)}: ${code ?? String(error)}`,
      missing: true,
    };
  }
}

/** The last non-empty line, escape-free and short: what a failing dogsled said last. */
export function lastLine(text: string): string {
  const lines = stripEscapes(text)
    .split('\n')
    .map((line) => plainLine(line).trim())
    .filter((line) => line !== '');
  return clip(lines.at(-1) ?? '', 200);
}

/** Parses a JSON answer; a binary that answers something else is a failure with a reason. */
export function jsonOf(result: CallResult): { value: unknown; why: string } {
  if (!result.ok) return { value: undefined, why: result.why };
  try {
    return { value: JSON.parse(result.stdout), why: '' };
  } catch {
    return { value: undefined, why: 'dogsled answered something that is not JSON' };
  }
}
