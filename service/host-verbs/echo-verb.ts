// `dogsled host echo ARGS…`: the arguments and input exactly as they arrived, with this host's name
// and dogsled version. Shows that every word travels as data, whatever it holds, and which dogsled a
// peer's remote_command runs.

import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { VERSION } from '../core/common/version.js';
import type { VerbIO, VerbResult } from './verb-table.js';

export async function echoVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  // Tests play a slow verb on a live host with this (honoured only under DOGSLED_TEST=1).
  const delayMs = io.env.DOGSLED_TEST === '1' ? Number(io.env.DOGSLED_TEST_ECHO_DELAY_MS ?? 0) : 0;
  if (delayMs > 0) await sleep(delayMs);
  return {
    value: {
      args: [...args],
      input: io.input.toString('utf8'),
      hostname: hostname(),
      version: VERSION,
    },
  };
}
