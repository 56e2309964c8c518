// `dogsled host echo ARGS…`: the arguments and input exactly as they arrived, with this host's name
// and dogsled version. Shows that every word travels as data, whatever it holds, and which dogsled a
// peer's remote_command runs.

import { hostname } from 'node:os';
import { VERSION } from '../version.js';
import type { VerbContext, VerbResult } from './table.js';

export async function echoVerb(args: readonly string[], ctx: VerbContext): Promise<VerbResult> {
  return {
    value: {
      args: [...args],
      input: ctx.input.toString('utf8'),
      hostname: hostname(),
      version: VERSION,
    },
  };
}
