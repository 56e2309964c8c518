// The pure text-cleaning helpers in one place: untrusted text (files other programs write, pane
// output, transcripts, provider answers) made into one escape-free, bounded line. Escape removal
// itself is strip-escapes.ts. Where two helpers differ, the name says how (folded, squeezed, clipped).

import { stripEscapes } from './strip-escapes.js';

const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;

/** One escape-free line: escapes removed whole, other control characters (newlines, tabs) as a space. */
export function plainLine(text: string): string {
  return stripEscapes(text).replace(CONTROLS, ' ');
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
