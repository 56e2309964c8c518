// What the extension takes from its process: the environment (HERDR_PANE_ID, DOGSLED_BIN,
// DOGSLED_STATE…), the home directory, the clock and its own version. Pi's default export builds
// them from the real process; tests pass their own, so nothing here reads process.env directly.

import { homedir } from 'node:os';
import { callerPane, stateDirFrom } from '../../../service/actions/pi-extension.js';
import { testKnob } from '../../../service/core/common/test-knobs.js';

declare const __DOGSLED_PI_VERSION__: string | undefined;

export interface PiDeps {
  env: NodeJS.ProcessEnv;
  home: string;
  now: () => number;
  /** This package's version, compared with `dogsled --version` once per session. */
  version: string;
}

export function processDeps(): PiDeps {
  const env = process.env;
  return {
    env,
    home: homedir(),
    now: clockOf(env),
    version: typeof __DOGSLED_PI_VERSION__ === 'string' ? __DOGSLED_PI_VERSION__ : 'dev',
  };
}

/**
 * The CLI's test clock (the NOW_MS knob), except that a malformed value means the real clock: the
 * extension never fails Pi over a test variable.
 */
export function clockOf(env: NodeJS.ProcessEnv): () => number {
  let value: number | undefined;
  try {
    value = testKnob(env, 'NOW_MS');
  } catch {
    return Date.now;
  }
  return value === undefined ? Date.now : () => value;
}

/** `$DOGSLED_BIN`, else `dogsled` on PATH. */
export function dogsledBin(deps: PiDeps): string {
  return deps.env.DOGSLED_BIN || 'dogsled';
}

/** The pane this Pi runs in; without it the extension starts no polling and no dogsled process. */
export function ownPane(deps: PiDeps): string | undefined {
  return callerPane(deps.env) ?? undefined;
}

export function stateDir(deps: PiDeps): string {
  return stateDirFrom(deps.env, deps.home);
}
