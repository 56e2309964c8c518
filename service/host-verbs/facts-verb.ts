// `dogsled host facts`: what this host is (OS, kernel, CPU, memory, GPUs) from systeminformation,
// as one JSON document. serve runs it once as a child when it starts (daemon/facts.ts), so the
// library's load and its commands never share the service's process.

import { readHostFacts } from '../probe/host-facts.js';
import { noArguments, type VerbIO, type VerbResult } from './verb-table.js';

export async function factsVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  noArguments('facts', args);
  return { value: await readHostFacts(io.now()) };
}
