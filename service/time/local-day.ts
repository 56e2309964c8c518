// The day a budget counts (core/receipts/day-budget.ts): from this host's local midnight to the
// next. Calendar arithmetic, not 24 hours: a day with a daylight-saving change is 23 or 25 hours.
// The time zone is the process's own (TZ), which is why this is here and not in the core.

import type { BudgetDay } from '../core/receipts/day-budget.js';

export function localDay(now: number): BudgetDay {
  const start = new Date(now);
  start.setHours(0, 0, 0, 0);
  const end = new Date(start.getTime());
  end.setDate(end.getDate() + 1);
  return { start_ms: start.getTime(), end_ms: end.getTime() };
}
