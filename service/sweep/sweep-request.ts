// sweep-request.json, changed under its lock: the stop gate asks (every Stop of every agent, the
// lean hook's too), the service marks what it answered. Checked by hand (state/checks), exactly as
// its zod schema would: a hook that writes it loads no zod.

import { nextSweepRequest } from '../core/cleanup/sweep-rule.js';
import type { SweepRequest } from '../core/cleanup/sweep-types.js';
import { SweepRequestCheck } from '../state/checks/sweep-request-check.js';
import { guarded } from '../state/engine/guarded.js';
import { readState, updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';

export function readSweepRequest(io: StateIO): Promise<SweepRequest | undefined> {
  const file = io.paths.sweepRequest;
  return guarded(io, file, () => readState(file, SweepRequestCheck, io));
}

/** Records a request (the newest wins; an owed one stays owed: core/sweep-rule.ts). */
export async function writeSweepRequest(io: StateIO, by: string | null): Promise<void> {
  const file = io.paths.sweepRequest;
  await guarded(io, file, () =>
    updateState(file, SweepRequestCheck, io, (current) => ({
      result: undefined,
      next: nextSweepRequest(current, by, io.now()),
    })),
  );
}

/** Marks the request a completed pass answered; a newer one arrived meanwhile stays owed. */
export function markSweepHandled(io: StateIO, request_ms: number): Promise<void> {
  const file = io.paths.sweepRequest;
  return guarded(io, file, () =>
    updateState(file, SweepRequestCheck, io, (current) => {
      if (current === undefined || (current.handled_ms ?? -Infinity) >= request_ms)
        return { result: undefined };
      return { result: undefined, next: { ...current, handled_ms: request_ms } };
    }),
  );
}
