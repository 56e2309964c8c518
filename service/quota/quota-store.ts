// quota.json, the one writer: a snapshot collected on this host and one pushed by a collector
// (`quota --store`, `host quota-store`) go through storeSnapshot, under quota.json's lock, so
// newer wins whichever arrives first. Reading never fails for want of a snapshot: none is the
// empty version-1 snapshot with fetched_ms 0.

import type * as z from 'zod/mini';
import { DogsledError } from '../core/common/errors.js';
import { cleanSnapshot, type QuotaSnapshot } from '../core/quota/quota-rows.js';
import { emptySnapshot, storeVerdict } from '../core/quota/quota-rules.js';
import { squeezedLine } from '../core/text/clean.js';
import { readState, type Update, updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { QuotaSnapshotSchema } from '../state/schemas/quota-schemas.js';

/** quota.json as its schema reads it: loose, so a newer collector's fields survive. */
type StoredSnapshot = z.input<typeof QuotaSnapshotSchema>;

/** Bytes a pushed snapshot may take: the row and text bounds of the schema fit in far less. */
export const MAX_SNAPSHOT_BYTES = 4 * 1024 * 1024;

export async function readQuota(io: StateIO): Promise<QuotaSnapshot> {
  return (await readState(io.paths.quota, QuotaSnapshotSchema, io)) ?? emptySnapshot();
}

export interface StoreResult {
  stored: boolean;
  /** fetched_ms of the snapshot quota.json holds afterwards. */
  fetched_ms: number;
}

/** Writes `snapshot` atomically unless quota.json holds one as new or newer; refuses an impossible one. */
export async function storeSnapshot(io: StateIO, snapshot: QuotaSnapshot): Promise<StoreResult> {
  return updateState(
    io.paths.quota,
    QuotaSnapshotSchema,
    io,
    (current): Update<StoredSnapshot, StoreResult> => {
      const verdict = storeVerdict(current, snapshot, io.now());
      if (verdict.store) {
        return {
          result: { stored: true, fetched_ms: snapshot.fetched_ms },
          next: snapshot as StoredSnapshot,
        };
      }
      if ('refused' in verdict) throw new DogsledError(`snapshot refused: ${verdict.refused}`);
      return { result: { stored: false, fetched_ms: verdict.kept_fetched_ms } };
    },
  );
}

/**
 * One snapshot as a peer or `quota --store` sends it: JSON text, validated whole before anything is
 * written, its text made escape-free.
 */
export function parseSnapshot(input: Buffer | string): QuotaSnapshot {
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.length;
  if (size > MAX_SNAPSHOT_BYTES) {
    throw new DogsledError(`snapshot on stdin: larger than ${MAX_SNAPSHOT_BYTES} bytes`);
  }
  const text = input.toString();
  if (text.trim() === '') throw new DogsledError('snapshot on stdin: nothing was sent');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DogsledError(`snapshot on stdin: not JSON: ${squeezedLine((error as Error).message)}`);
  }
  const parsed = QuotaSnapshotSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') ?? '';
    const why = squeezedLine(issue?.message ?? 'invalid');
    throw new DogsledError(`snapshot on stdin: ${where ? `${where}: ` : ''}${why}`);
  }
  // Text a peer sent is shown on this host's terminals: made safe before it is ever stored.
  return cleanSnapshot(parsed.data as QuotaSnapshot);
}

/** `quota --store` and `host quota-store`: one snapshot as sent, validated, then the newer-wins write. */
export async function storePushedSnapshot(io: StateIO, input: Buffer | string): Promise<StoreResult> {
  return storeSnapshot(io, parseSnapshot(input));
}
