// `dogsled host echo ARGS…`: the arguments and input exactly as they arrived, with this host's name
// and dogsled version. Shows that every word travels as data, whatever it holds, and which dogsled a
// peer's remote_command runs.

import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { testKnob } from '../core/common/test-knobs.js';
import { VERSION } from '../core/common/version.js';
import type { VerbIO, VerbResult } from './verb-table.js';

export async function echoVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  // Tests play a slow verb on a live host with the ECHO_DELAY_MS knob.
  const delayMs = testKnob(io.env, 'ECHO_DELAY_MS');
  if (delayMs !== undefined) await sleep(delayMs);
  return {
    value: {
      args: [...args],
      input: io.input.toString('utf8'),
      hostname: hostname(),
      version: VERSION,
    },
  };
}
