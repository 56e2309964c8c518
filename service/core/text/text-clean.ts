// The pure text-cleaning helpers in one place: untrusted text (files other programs write, pane
// output, transcripts, provider answers) made into one escape-free, bounded line. Escape removal
// itself is strip-escapes.ts. Where two helpers differ, the name says how (folded, squeezed, clipped).

import { stripEscapes } from './strip-escapes.js';

const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;

/** One escape-free line: escapes removed whole, other control characters (newlines, tabs) as a space. */
export function plainLine(text: string): string {
  return stripEscapes(text).replace(CONTROLS, ' ');
}

/** How deep plainStrings follows a value: an honest document is a few levels deep. */
const MAX_DEPTH = 32;

/**
 * A JSON value (parsed JSON or msgpack) with every string in it, object keys included, made a
 * plainLine: for a document from another host, none of whose fields is trusted, wherever it is
 * shown. Nesting past MAX_DEPTH is cut to null (no honest document goes there, and a deeper one
 * would cost a stack per level).
 */
export function plainStrings<T>(value: T): T {
  return plainValue(value, 0) as T;
}

function plainValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return plainLine(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => plainValue(item, depth + 1));
  // fromEntries defines each key as data: a `__proto__` key stays a key, never a prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [plainLine(key), plainValue(item, depth + 1)]),
  );
}

/** At most `max` UTF-16 units, with `…` where it was cut (the caller's `max` is positive). */
export function cutLine(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** plainLine, cut at `max`. */
export function clippedLine(text: string, max: number): string {
  return cutLine(plainLine(text), max);
}

/** plainLine with every run of whitespace squeezed to one space and the ends trimmed, cut at `max`. */
export function squeezedLine(text: string, max: number): string {
  return cutLine(plainLine(text).replace(/\s+/g, ' ').trim(), max);
}

/** At most `width` characters, with `…` where it was cut, never splitting a surrogate pair. */
export function clipText(text: string, width: number): string {
  if (text.length <= width) return text;
  return `${cutAt(text, Math.max(0, width - 1))}…`;
}

/** The first `at` UTF-16 units, one fewer when the cut would split a surrogate pair. */
export function cutAt(text: string, at: number): string {
  const code = text.charCodeAt(at - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? at - 1 : at);
}

/**
 * Parser messages quote file content, which is untrusted: no escape sequences (removed whole, so no
 * `[2J` is left behind), no control characters, bounded length.
 */
export function oneLine(text: string, max = 160): string {
  return squeezedLine(text, max);
}
