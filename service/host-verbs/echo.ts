// `dogsled host echo ARGS…`: the arguments and input exactly as they arrived, with this host's name
// and dogsled version. Shows that every word travels as data, whatever it holds, and which dogsled a
// peer's remote_command runs.

import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { VERSION } from '../version.js';
import type { VerbContext, VerbResult } from './table.js';

export async function echoVerb(args: readonly string[], ctx: VerbContext): Promise<VerbResult> {
  // Tests play a slow verb on a live host with this (honoured only under DOGSLED_TEST=1).
  const delayMs = process.env.DOGSLED_TEST === '1' ? Number(process.env.DOGSLED_TEST_ECHO_DELAY_MS ?? 0) : 0;
  if (delayMs > 0) await sleep(delayMs);
  return {
    value: {
      args: [...args],
      input: ctx.input.toString('utf8'),
      hostname: hostname(),
      version: VERSION,
    },
  };
}
