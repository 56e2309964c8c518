// The injected clock: Unix milliseconds from Date.now, or a frozen instant for deterministic tests.
// The test clock (the NOW_MS knob, core/common/test-knobs.ts) counts only together with
// DOGSLED_TEST=1, so a stray variable in a user's shell can never move a real host's clock; when it
// counts, a malformed value is an error.

import { testKnob } from '../../core/common/test-knobs.js';

export type Clock = () => number;

export function clockFromEnv(env: NodeJS.ProcessEnv): Clock {
  const value = testKnob(env, 'NOW_MS');
  return value === undefined ? Date.now : () => value;
}
