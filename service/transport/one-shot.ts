// What a one-shot `dogsled host <verb>` process said, read back the same way whether it ran here
// (local.ts) or through ssh (openssh.ts): one JSON document on stdout is the verb's value (whatever
// the exit status: `wait` exits with its job's code); no document and a `dogsled: …` line on stderr
// is the verb's refusal. Anything else did not come from dogsled: the remote command failed.

import { stripEscapes } from '../core/text/clean.js';
import type { RunResult } from '../process/run-process.js';
import type { VerbReply } from './types.js';

const PREFIX = 'dogsled: ';

/** The verb's reply, or undefined when the output is not dogsled's (the caller names the failure). */
export function oneShotReply(result: RunResult): VerbReply | undefined {
  if (result.signal !== null || result.exitCode === null || result.truncated) return undefined;
  const durationMs = Math.round(result.durationMs);
  const stdout = result.stdout.toString('utf8').trim();
  if (stdout !== '') {
    try {
      return { ok: true, value: JSON.parse(stdout), exitCode: result.exitCode, durationMs };
    } catch {
      return undefined;
    }
  }
  if (result.exitCode === 0) return undefined;
  const refusal = result.stderr
    .toString('utf8')
    .split('\n')
    .map((line) => line.trimEnd())
    .findLast((line) => line.startsWith(PREFIX));
  if (refusal === undefined) return undefined;
  const error = stripEscapes(refusal.slice(PREFIX.length)).trim();
  return { ok: false, error, exitCode: result.exitCode, durationMs };
}

/** One debug line for a failed one-shot call: how it ended and its stderr. */
export function oneShotDetail(result: RunResult): string {
  const how = result.timedOut
    ? 'deadline reached'
    : result.signal
      ? `killed by ${result.signal}`
      : `exit ${result.exitCode}`;
  const stderr = result.stderr.toString('utf8').trim();
  const stdout = result.stdout.toString('utf8').trim();
  return [how, stderr, stdout === '' ? '' : `stdout: ${stdout.slice(0, 200)}`].filter(Boolean).join(': ');
}
