// Where the CLIProxy management key comes from: on macOS the Keychain item (service dogsled,
// account cliproxy-management), read by `security … -w`, whose stdout is the key; nowhere else, so a
// Linux host never reads it and its quota commands use the cache. The key is captured in memory
// only: never in argv (the command names the item, not the key), a file, a log or an error.
//
// Tests on Linux: the QUOTA_KEY_COMMAND knob (core/common/test-knobs.ts) names an executable run with
// no arguments whose stdout is the key, read exactly as `security`'s is.

import { testKnob } from '../core/common/test-knobs.js';
import { squeezedLine } from '../core/text/clean.js';
import { runProcess, SpawnError, succeeded } from '../process/run-process.js';

export const KEYCHAIN_SERVICE = 'dogsled';
export const KEYCHAIN_ACCOUNT = 'cliproxy-management';
const SECURITY = '/usr/bin/security';
/** Keychain may ask the user to unlock it; a minute is long enough to answer, short enough to give up. */
const KEY_READ_TIMEOUT_MS = 60_000;
/** No real key is longer; a longer output is not a key. */
const MAX_KEY_BYTES = 4_096;

export type KeySource =
  | { kind: 'command'; file: string; args: readonly string[]; what: string }
  | { kind: 'none'; reason: string };

export function keySource(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): KeySource {
  const test = testKnob(env, 'QUOTA_KEY_COMMAND');
  if (test) return { kind: 'command', file: test, args: [], what: 'the test key command' };
  if (platform !== 'darwin') {
    return { kind: 'none', reason: 'only macOS collects quota; this host reads its cached snapshot' };
  }
  return {
    kind: 'command',
    file: SECURITY,
    args: ['find-generic-password', '-s', KEYCHAIN_SERVICE, '-a', KEYCHAIN_ACCOUNT, '-w'],
    what: `the Keychain item ${KEYCHAIN_SERVICE}/${KEYCHAIN_ACCOUNT}`,
  };
}

export type KeyRead = { ok: true; key: string } | { ok: false; reason: string };

/** The key, or why it could not be read (a reason that never contains the command's output). */
export async function readManagementKey(
  source: KeySource,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<KeyRead> {
  if (source.kind === 'none') return { ok: false, reason: source.reason };
  const unreadable = (why: string): KeyRead => ({
    ok: false,
    reason: `${source.what} is unreadable: ${why}`,
  });
  let result: Awaited<ReturnType<typeof runProcess>>;
  try {
    result = await runProcess(source.file, source.args, {
      // Only what `security` needs to find the user's keychain; none of the caller's variables.
      env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', HOME: env.HOME ?? '', USER: env.USER ?? '' },
      timeoutMs: KEY_READ_TIMEOUT_MS,
      maxOutputBytes: MAX_KEY_BYTES,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return unreadable(
      error instanceof SpawnError ? `cannot run it (${error.code ?? 'error'})` : 'cannot run it',
    );
  }
  // Checked first: past the cap the runner stops the command, which is not why it failed.
  if (result.truncated) return unreadable('its output is too long to be a key');
  if (!succeeded(result)) {
    // security's stderr names the problem ("could not be found in the keychain"); stdout is never shown.
    const stderr = squeezedLine(result.stderr.toString('utf8'), 160);
    const how = result.timedOut
      ? 'no answer in time'
      : result.aborted
        ? 'interrupted'
        : result.signal
          ? `killed by ${result.signal}`
          : `exit ${result.exitCode}`;
    return unreadable(stderr ? `${how}: ${stderr}` : how);
  }
  const key = result.stdout.toString('utf8').replace(/\r?\n$/, '');
  if (key === '') return unreadable('it is empty');
  // A key goes into an HTTP header: anything but visible ASCII would break or bend the request.
  if (!/^[\x21-\x7e]+$/.test(key)) return unreadable('it holds characters a key cannot have');
  return { ok: true, key };
}
