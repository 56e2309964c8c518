// `dogsled host <verb> [args…]` (hidden): what a peer runs on this host on a caller's behalf, through
// the transport's remote_command. Prints the verb's value as one JSON document; `host rpc` serves the
// same verbs as frames on stdin/stdout. The verbs live in service/host-verbs; this only wires stdio.

import { buffer } from 'node:stream/consumers';
import { DogsledError } from '../../service/core/common/errors.js';
import { HOST_VERBS, hostVerb, runVerb } from '../../service/host-verbs/verb-table.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export async function hostCommand(words: readonly string[], ctx: CliContext): Promise<number> {
  const [name, ...args] = words;
  if (name === undefined) {
    const known = [...Object.keys(HOST_VERBS), 'rpc'].join(', ');
    throw new DogsledError(`host: which verb? (known: ${known})`);
  }
  if (name === 'rpc') {
    if (args.length > 0) throw new DogsledError(`host rpc: takes no arguments, got "${args[0]}"`);
    const { serveRpc } = await import('../../service/host-verbs/rpc-server.js');
    return serveRpc({ input: process.stdin, output: process.stdout, io: () => hostIO(ctx) });
  }
  const verb = hostVerb(name);
  const input = verb.takesInput ? await buffer(process.stdin) : Buffer.alloc(0);
  const result = await runVerb(name, args, { ...(await hostIO(ctx)), input });
  ctx.out(`${JSON.stringify(result.value ?? null)}\n`);
  return result.exitCode ?? 0;
}
