// `dogsled host quota-store`: a collector's snapshot on stdin, stored on this host by the same
// writer as `quota --store` (validated whole, newer wins). Answers whether it was stored and the
// fetched_ms quota.json holds afterwards; a snapshot that cannot be right is refused in one line.

import { storePushedSnapshot } from '../quota/store.js';
import { noArguments, type VerbContext, type VerbResult } from './table.js';

export async function quotaStoreVerb(args: readonly string[], ctx: VerbContext): Promise<VerbResult> {
  noArguments('quota-store', args);
  const result = await storePushedSnapshot(ctx.io, ctx.input);
  return { value: result };
}
