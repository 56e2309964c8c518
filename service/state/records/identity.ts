// identity.json: this host's identity as the owner of children on peers. A peer keeps the messages
// of such a child under this id (its outbox.json) and gives them to whoever claims with it, so the
// id is random, made once under the file's lock and never changed (hostnames repeat across a fleet).

import { DogsledError } from '../../core/common/errors.js';
import { newId } from '../engine/ids.js';
import { readState, updateState } from '../engine/store.js';
import type { StateIO } from '../io.js';
import { IdentitySchema } from '../schemas/outbox-schemas.js';

/** This host's owner identity, made on first use. */
export async function hostIdentity(io: StateIO): Promise<string> {
  const known = await readState(io.paths.identity, IdentitySchema, io).catch(() => undefined);
  if (known !== undefined) return known.id;
  try {
    return await updateState(io.paths.identity, IdentitySchema, io, (current) => {
      if (current !== undefined) return { result: current.id };
      const next = { version: 1 as const, id: newId('h'), created_ms: io.now() };
      return { result: next.id, next };
    });
  } catch (error) {
    if (error instanceof DogsledError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new DogsledError(`identity.json: ${code}`, { cause: error });
  }
}
