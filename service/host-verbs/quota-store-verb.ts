// `dogsled host quota-store`: a collector's snapshot on stdin, stored on this host by the same
// writer as `quota --store` (validated whole, newer wins). Answers whether it was stored and the
// fetched_ms quota.json holds afterwards; a snapshot that cannot be right is refused in one line.

import { DogsledError } from '../core/common/errors.js';
import { storePushedSnapshot } from '../quota/quota-store.js';
import { noArguments, type VerbIO, type VerbResult } from './verb-table.js';

export async function quotaStoreVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  noArguments('quota-store', args);
  try {
    return { value: await storePushedSnapshot(io, io.input) };
  } catch (error) {
    // The caller is another host: its error line names the verb it asked for.
    if (error instanceof DogsledError)
      throw new DogsledError(`quota-store: ${error.message}`, { cause: error });
    throw error;
  }
}
