// The sweep's files: sweep-request.json (changed under its lock: the gate asks, the service marks
// what it answered), sweep.json (the latest requested pass) and sweeps.jsonl (a week of passes, the
// orphan check's too, rewritten whole on each pass: passes are rare, so a torn or foreign line is
// simply dropped). Anything but a regular file in their place is a one-line error naming it.

import { isLatestRecord, keptHistory } from '../core/cleanup/sweep-rule.js';
import type { SweepPass, SweepRequest } from '../core/cleanup/sweep-types.js';
import { writeAtomic } from '../state/engine/atomic-write.js';
import { guarded } from '../state/engine/guarded.js';
import { readRegular } from '../state/engine/regular-file.js';
import { readState, updateState, writeState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { STATE_FILE_MODE } from '../state/paths.js';
import { SweepPassSchema, SweepRequestSchema } from '../state/schemas/sweep-schemas.js';

export function readSweepRequest(io: StateIO): Promise<SweepRequest | undefined> {
  const file = io.paths.sweepRequest;
  return guarded(io, file, () => readState(file, SweepRequestSchema, io));
}

/** Records a request (the newest wins; an owed one stays owed). */
export async function writeSweepRequest(io: StateIO, by: string | null): Promise<void> {
  const file = io.paths.sweepRequest;
  await guarded(io, file, () =>
    updateState(file, SweepRequestSchema, io, (current) => {
      const requested_ms = Math.max(io.now(), (current?.requested_ms ?? 0) + 1);
      return {
        result: undefined,
        next: {
          ...(current ?? {}),
          version: 1 as const,
          requested_ms,
          by,
          handled_ms: current?.handled_ms ?? null,
        },
      };
    }),
  );
}

/** Marks the request a completed pass answered; a newer one arrived meanwhile stays owed. */
export function markSweepHandled(io: StateIO, request_ms: number): Promise<void> {
  const file = io.paths.sweepRequest;
  return guarded(io, file, () =>
    updateState(file, SweepRequestSchema, io, (current) => {
      if (current === undefined || (current.handled_ms ?? -Infinity) >= request_ms)
        return { result: undefined };
      return { result: undefined, next: { ...current, handled_ms: request_ms } };
    }),
  );
}

export function readLatestSweep(io: StateIO): Promise<SweepPass | undefined> {
  const file = io.paths.sweep;
  return guarded(io, file, () => readState(file, SweepPassSchema, io));
}

/** The service's passes are recorded one at a time: two rewrites of the history at once lose a line. */
let recording: Promise<unknown> = Promise.resolve();

/**
 * sweep.json for a requested pass (core/sweep.ts, isLatestRecord), then sweeps.jsonl with the passes
 * of the last seven days (by ts_ms) and this one. The sweep worker and the orphan lane both record,
 * each from its own loop: they queue here.
 */
export function recordSweep(io: StateIO, pass: SweepPass, guard?: () => Promise<void>): Promise<void> {
  const next = recording.then(() => record(io, pass, guard));
  recording = next.catch(() => undefined);
  return next;
}

async function record(io: StateIO, pass: SweepPass, guard?: () => Promise<void>): Promise<void> {
  if (isLatestRecord(pass)) {
    await guarded(io, io.paths.sweep, () =>
      writeState(io.paths.sweep, SweepPassSchema, pass, guard ? { guard } : {}),
    );
  }
  await guarded(io, io.paths.sweeps, async () => {
    const text = (await readRegular(io.paths.sweeps)) ?? '';
    const history: SweepPass[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const parsed = SweepPassSchema.safeParse(JSON.parse(line));
        if (parsed.success) history.push(parsed.data);
      } catch {
        // A torn or foreign line: dropped on this rewrite.
      }
    }
    const kept = keptHistory([...history, pass], pass.ts_ms);
    const body = kept.map((entry) => JSON.stringify(entry)).join('\n');
    await writeAtomic(io.paths.sweeps, kept.length > 0 ? `${body}\n` : '', {
      mode: STATE_FILE_MODE,
      ...(guard ? { guard } : {}),
    });
  });
}
