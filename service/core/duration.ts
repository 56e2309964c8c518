// Durations as the spec writes them: an integer count of milliseconds, or an integer with an
// s, m or h suffix. Fractions and other units are refused so "1.5h" never silently means 1 h.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const DURATION = /^(\d+)(ms|s|m|h)?$/;

export type DurationResult = { ok: true; ms: number } | { ok: false; error: string };

export function parseDuration(text: string): DurationResult {
  const match = DURATION.exec(text.trim());
  if (!match) {
    return { ok: false, error: `bad duration "${text}": use an integer with ms, s, m or h (90s, 10m, 1h)` };
  }
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
  if (!Number.isSafeInteger(ms)) return { ok: false, error: `duration "${text}" is too large` };
  return { ok: true, ms };
}

/** Short human form of a span: 850ms, 42s, 3m, 2h 5m, 4d. */
export function formatAge(ms: number): string {
  const abs = Math.max(0, Math.round(ms));
  if (abs < 1_000) return `${abs}ms`;
  const s = Math.floor(abs / 1_000);
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${h}h` : `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d`;
}
