// The sweep's passes: sweep.json (the latest requested pass) and sweeps.jsonl (a week of passes, the
// orphan check's too, rewritten whole on each pass: passes are rare, so a torn or foreign line is
// simply dropped); the request is sweep-request.ts's. Anything but a regular file in their place is
// a one-line error naming it.

import { isLatestRecord, keptHistory } from '../core/cleanup/sweep-rule.js';
import type { SweepPass } from '../core/cleanup/sweep-types.js';
import { writeAtomic } from '../state/engine/atomic-write.js';
import { guarded } from '../state/engine/guarded.js';
import { readRegular } from '../state/engine/regular-file.js';
import { readState, writeState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { STATE_FILE_MODE } from '../state/paths.js';
import { SweepPassSchema } from '../state/schemas/sweep-schemas.js';

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
