// The session facts the service shows for an agent pane, folded from transcript records. Pure:
// the newest record that names a model wins, and so does the newest activity.

import { type Activity, formatOf, recordFacts, type TranscriptFormat } from './formats.js';
import type { JsonRecord } from './lines.js';

export type { Activity } from './formats.js';

export interface TranscriptFacts {
  model: string | null;
  activity: Activity | null;
}

export const NO_FACTS: TranscriptFacts = { model: null, activity: null };

/** Facts from records in file order; unknown agent kinds yield none. */
export function transcriptFacts(records: readonly JsonRecord[], agent: string): TranscriptFacts {
  const format = formatOf(agent);
  if (!format) return NO_FACTS;
  return latestFacts(records, format);
}

export function latestFacts(records: readonly JsonRecord[], format: TranscriptFormat): TranscriptFacts {
  let model: string | null = null;
  let activity: Activity | null = null;
  for (let i = records.length - 1; i >= 0 && (model === null || activity === null); i--) {
    const facts = recordFacts(format, records[i]!);
    if (model === null && facts.model) model = facts.model;
    if (activity === null && facts.activity) activity = facts.activity;
  }
  return { model, activity };
}
