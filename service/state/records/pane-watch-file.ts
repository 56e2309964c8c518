// pane-watch.json: the service's per-terminal observations that the pane rule needs (how long a
// shell has sat at an empty prompt, how long an agent has been idle or done). Only the service
// writes it, once per tick and whole; doctor, prune and the sweep read it. Carry-over is in
// core/pane-watch-carry.ts.

import * as z from 'zod/mini';
import { WATCH_MAX_GAP_MS, type WatchEntry } from '../../core/cleanup/pane-watch-carry.js';
import { lazySchema } from '../engine/lazy-schema.js';
import { readState, writeState } from '../engine/store.js';
import type { StateIO } from '../io.js';
import type { StatePaths } from '../paths.js';
import '../engine/zod-messages.js';

const ms = lazySchema(() => z.int());

export const PaneWatchEntrySchema = lazySchema(() =>
  z.looseObject({
    pane: z.string(),
    empty_since_ms: z.nullable(ms),
    idle_since_ms: z.optional(z.nullable(ms)),
    observed_ms: ms,
  }),
);

export const PaneWatchSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    /** The longest gap between samples that the writer still counted as continuous. */
    max_gap_ms: z.optional(ms),
    /** Keyed by terminal id. */
    panes: z.record(z.string(), PaneWatchEntrySchema),
  }),
);

export type PaneWatch = z.infer<typeof PaneWatchSchema>;

/** The file, or undefined when it is missing (or was corrupt and has been moved aside). */
export async function readPaneWatch(io: StateIO): Promise<PaneWatch | undefined> {
  return readState(io.paths.paneWatch, PaneWatchSchema, io);
}

/** Replaces the file atomically with this tick's observations. */
export async function writePaneWatch(
  paths: StatePaths,
  panes: Readonly<Record<string, WatchEntry>>,
  maxGapMs: number = WATCH_MAX_GAP_MS,
): Promise<void> {
  const entries: PaneWatch['panes'] = {};
  for (const [terminal, entry] of Object.entries(panes)) entries[terminal] = { ...entry };
  await writeState(paths.paneWatch, PaneWatchSchema, { version: 1, max_gap_ms: maxGapMs, panes: entries });
}

/** The entries in the shape core/pane-watch-carry.ts carries on (unknown fields dropped). */
export function watchEntries(watch: PaneWatch | undefined): Record<string, WatchEntry> {
  const entries: Record<string, WatchEntry> = {};
  for (const [terminal, entry] of Object.entries(watch?.panes ?? {})) {
    entries[terminal] = {
      pane: entry.pane,
      empty_since_ms: entry.empty_since_ms,
      ...(entry.idle_since_ms === undefined ? {} : { idle_since_ms: entry.idle_since_ms }),
      observed_ms: entry.observed_ms,
    };
  }
  return entries;
}

/** The gap the writer used, so readers judge continuity by the same bound. */
export function watchMaxGap(watch: PaneWatch | undefined): number {
  return watch?.max_gap_ms ?? WATCH_MAX_GAP_MS;
}
