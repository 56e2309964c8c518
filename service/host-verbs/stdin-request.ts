// The JSON document a host verb takes on stdin (`launch`, `admission`, `agent`, `worktree`, `send`):
// parsed and checked against the verb's schema in one place, so each such verb refuses stray
// arguments, text that is not JSON and a document of the wrong shape in the same words.

import type * as z from 'zod/mini';
import { DogsledError } from '../core/common/errors.js';
import type { VerbIO } from './verb-table.js';

/** How a verb names what it reads: `the ask on stdin is not an admission ask`. */
export interface StdinNames {
  verb: string;
  /** `request` or `ask`. */
  noun: string;
  /** What the document is, with its article: `a launch request`. */
  kind: string;
}

/**
 * The caller's input as JSON, of `schema`'s shape; anything else is one line, exit 2. A verb whose
 * only input is stdin passes its arguments too, and any of them is refused first, naming the first.
 */
export function stdinRequest<T>(
  names: StdinNames,
  io: VerbIO,
  schema: z.ZodMiniType<T>,
  args: readonly string[] = [],
): T {
  if (args.length > 0)
    throw new DogsledError(`host ${names.verb}: takes its ${names.noun} on stdin, got "${args[0]}"`);
  let json: unknown;
  try {
    json = JSON.parse(io.input.toString('utf8'));
  } catch {
    throw new DogsledError(`host ${names.verb}: the ${names.noun} on stdin is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new DogsledError(`host ${names.verb}: the ${names.noun} on stdin is not ${names.kind}`);
  return parsed.data;
}
