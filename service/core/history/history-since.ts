// `history --since D`: a duration back from now (`90m`, `48h`, `7d`) or a UTC day (`2026-12-01`).
// Pure; a bad value is one line naming what is accepted.

import { parseDuration } from '../common/duration.js';
import { DogsledError } from '../common/errors.js';
import { quoted } from '../text/clean.js';

const DAYS = /^(\d{1,3})d$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function sinceMs(text: string, now: number): number {
  const trimmed = text.trim();
  const days = DAYS.exec(trimmed);
  if (days) return now - Number(days[1]) * 86_400_000;
  if (DAY.test(trimmed)) {
    const ms = Date.parse(`${trimmed}T00:00:00Z`);
    if (Number.isFinite(ms)) return ms;
  }
  const duration = parseDuration(trimmed);
  if (duration.ok) return now - duration.ms;
  throw new DogsledError(
    `--since ${quoted(text)}: expected a duration back from now (90m, 48h, 7d) or a day (2026-12-01)`,
  );
}
