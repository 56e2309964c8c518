// The shape of a value parsed from a state file, checked by hand: what a lean reader (the hot
// paths' glances) and a hand check of a record (state/checks) ask of each field, so each asks it one
// way. Pure.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** What zod's `z.int()` accepts: a safe integer. */
export function isInt(value: unknown): value is number {
  return Number.isSafeInteger(value);
}

export function atLeastZero(value: unknown): value is number {
  return isNumber(value) && value >= 0;
}

export function isCount(value: unknown): value is number {
  return isInt(value) && value >= 0;
}

export function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

export function isIntOrNull(value: unknown): value is number | null {
  return value === null || isInt(value);
}

export function isStringOrNull(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/** `received array`, `received NaN`: how zod names what it found, for a hand check's message. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}
