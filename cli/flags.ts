// The flag vocabulary every command shares: durations (`--timeout`, `--idle-timeout`), the `--max`
// deadline, `--interval`, `--cwd` and `--host`. One parser per flag, so a value means the same in
// every command and a refusal reads the same. Errors name the flag; the command wrapper
// (command.ts) adds the command's name in front.

import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDuration, parseSeconds } from '../service/core/common/duration.js';
import { DogsledError } from '../service/core/common/errors.js';
import { MAX_DEFAULT_MS } from '../service/core/placement/budget.js';

/** `status --watch` refreshes every 5 seconds unless `--interval` says otherwise. */
export const STATUS_INTERVAL_DEFAULT = '5';

/**
 * A duration flag: an integer with ms, s, m or h, longer than 0 and at most 365 days. Zero is
 * refused everywhere: a timeout of 0 would kill at once, and a `--max 0` would have passed before
 * the command could read anything.
 */
export function durationFlag(flag: string, text: string): number {
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new DogsledError(`${flag}: ${parsed.error}`);
  if (parsed.ms === 0) throw new DogsledError(`${flag}: must be longer than 0 (got "${text}")`);
  return parsed.ms;
}

/** An optional duration flag: undefined when not given. */
export function optionalDurationFlag(flag: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : durationFlag(flag, text);
}

/**
 * `--max D` (default 30 minutes) in milliseconds. Every command starts its deadline at the
 * process's start (`Deadline.fromProcessStart`), so start-up, discovery and placement count too.
 */
export function maxFlag(text: string | undefined): number {
  return text === undefined ? MAX_DEFAULT_MS : durationFlag('--max', text);
}

/** `--interval N`: seconds (decimals allowed), more than a millisecond and at most a day. */
export function intervalFlag(text: string): number {
  const parsed = parseSeconds(text);
  if (!parsed.ok) throw new DogsledError(`--interval: ${parsed.error}`);
  return parsed.ms;
}

/** `--cwd DIR` (default: the current directory) as an absolute real path to an existing directory. */
export async function cwdFlag(text: string | undefined): Promise<string> {
  const path = resolve(text ?? '.');
  // Synchronous, as node:fs/promises would answer (realpath is the system's, .native): two calls on
  // a local path, and the hot `run` then loads neither fs/promises nor the thread pool for them.
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch {
    throw new DogsledError(`--cwd: no such directory: ${path}`);
  }
  if (!statSync(real).isDirectory()) throw new DogsledError(`--cwd: not a directory: ${path}`);
  return real;
}

/** `--host ID` for placement: a host id or label, checked against the known hosts when placing. */
export function hostFlag(text: string | undefined): string | null {
  if (text === undefined) return null;
  if (text.trim() === '') throw new DogsledError('--host: expected a host id or label, got ""');
  return text;
}
