// A warm supervisor's young generation, emptied before it waits for a claim. V8 collects it (a
// scavenge) when it fills, or in a task soon after it passes most of its size; a warm supervisor
// reached its claim with its start-up's garbage still there, so the job's first few hundred KB set
// one off between the claim and the job's end, on the caller's clock: 17 to 36 ms each, in every
// job of a loaded run on the PVM guest (a GC observer's log). Garbage allocated here until one
// happens puts it before the claim. Public API only: node:v8's heap figures say when the new space
// shrank, which is a scavenge.

/** Each step's garbage: arrays of 1,024 small integers (8 KiB each), in the new space. */
const STEP_ARRAYS = 8;
const ARRAY_LENGTH = 1024;
/** Some 8 KiB an array: its elements and its header. */
const STEP_BYTES = STEP_ARRAYS * (ARRAY_LENGTH * 8 + 32);
/** V8's largest young generation is 16 MiB a semi-space: past 4 times that, something else is wrong. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * Allocates garbage until V8 collects the young generation, at most `maxBytes` of it; whether a
 * collection was seen. Synchronous, some milliseconds: run where no one waits.
 */
export function collectYoungGeneration(maxBytes: number = MAX_BYTES): boolean {
  const v8 = process.getBuiltinModule('node:v8');
  const used = (): number | undefined =>
    v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_used_size;
  let last = used();
  if (last === undefined) return false;
  for (let allocated = 0; allocated < maxBytes; allocated += STEP_BYTES) {
    garbage();
    const now = used();
    if (now === undefined) return false;
    if (now < last) return true;
    last = now;
  }
  return false;
}

/** Arrays dropped as soon as made: only their allocation counts. */
function garbage(): void {
  const made: number[][] = [];
  for (let i = 0; i < STEP_ARRAYS; i++) made.push(new Array<number>(ARRAY_LENGTH).fill(i));
}
