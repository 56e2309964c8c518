// The one vocabulary for untrusted text (pane output, transcripts, logs, files other programs write,
// what a peer, an agent or a user sends) on its way to a terminal, a file or another agent. Every
// caller imports from here; each name is one operation, and the others are built from them:
//
//   stripEscapes(text)         escape sequences, controls and invisible characters removed; newlines
//                              and tabs kept (strip-escapes.ts): text that stays several lines
//   plainLine(text)            stripEscapes, then each run of newlines and tabs one space: one line
//   squeezedLine(text, max)    plainLine with every whitespace run one space, ends trimmed, clipped
//                              at max (160 by default): a quote of a file inside a message
//   clip(text, max)            at most max UTF-16 units, `…` where it was cut
//   clipStart(text, max)       at most max UTF-16 units, `…` first where its start was cut: a path
//   cutAt(text, at)            at most `at` UTF-16 units, nothing added
//   clipPoints(text, max)      at most max code points, `…` where it was cut: an emoji counts one,
//                              as a reader sees it (a transcript's activity line)
//   quoted(text, max)          plainLine, clipped (80), in double quotes: a value inside an error
//   quotedVisible(text, max)   every control character spelled \xNN, clipped (80), in double quotes:
//                              a value whose exact characters matter (a launch line)
//   quotedBytes(bytes)         printable ASCII as is, every other byte \xNN, in double quotes
//   plainStrings(value)        every string of a JSON value made a plainLine, keys too
//   strippedStrings(value)     every string of a JSON value stripped of escapes, keys a plainLine
//
// Clipping never splits a surrogate pair: a character is whole or gone. Widths in terminal cells
// (wide characters, emoji) are the sidebar's (sidebar/model/cells.ts), not this module's.

export { stripEscapes } from './strip-escapes.js';

import { stripEscapes } from './strip-escapes.js';

const CONTROL_RUNS = /[\u0000-\u001f\u007f-\u009f]+/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** One escape-free line: escapes removed whole, other control characters (newlines, tabs) as a space. */
export function plainLine(text: string): string {
  const stripped = stripEscapes(text);
  // stripEscapes keeps no control character but these two: a line without them is done, and the
  // regular expression (compiled on its first use, run for every string of a peer's reply) is not run.
  if (!stripped.includes('\n') && !stripped.includes('\t')) return stripped;
  return stripped.replace(CONTROL_RUNS, ' ');
}

/** plainLine with every run of whitespace one space and the ends trimmed, clipped at `max`. */
export function squeezedLine(text: string, max = 160): string {
  return clip(plainLine(text).replace(/\s+/g, ' ').trim(), max);
}

/** At most `max` UTF-16 units, with `…` in the last one where it was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${cutAt(text, Math.max(0, max - 1))}…`;
}

/** At most `max` UTF-16 units, with `…` first where its start was cut (a path's end says most). */
export function clipStart(text: string, max: number): string {
  if (text.length <= max) return text;
  const kept = text.slice(text.length - Math.max(0, max - 1));
  const code = kept.charCodeAt(0);
  return `…${code >= 0xdc00 && code <= 0xdfff ? kept.slice(1) : kept}`;
}

/** The first `at` UTF-16 units, one fewer when the cut would split a surrogate pair. */
export function cutAt(text: string, at: number): string {
  const code = text.charCodeAt(at - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? at - 1 : at);
}

/** At most `max` code points, with `…` in the last one where it was cut. */
export function clipPoints(text: string, max: number): string {
  // A string of at most max UTF-16 units holds at most max code points: no need to split it.
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/**
 * A value a user typed or a file named, inside a one-line message: quoted, escape sequences and
 * control characters removed whole (no `[2J` remnant reaches the terminal), clipped at `max`.
 */
export function quoted(text: string, max = 80): string {
  return inQuotes(clip(plainLine(text), max));
}

/**
 * A value whose exact characters matter (a path Herdr cannot type), inside a one-line message:
 * every control character (C0, DEL and the C1 range terminals also act on) spelled `\xNN`, quoted,
 * clipped at `max`.
 */
export function quotedVisible(text: string, max = 80): string {
  const spelled = text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return inQuotes(clip(spelled, max));
}

/**
 * Bytes that may not be text (an argument that is not UTF-8), quoted: printable ASCII as is, every
 * other byte, `\` and `"` as `\xNN`, so the message is one safe line whatever the bytes were.
 */
export function quotedBytes(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) {
    text +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x5c && byte !== 0x22
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `"${text}"`;
}

function inQuotes(text: string): string {
  return `"${text.replaceAll('"', '\\"')}"`;
}

/** How deep a JSON value is followed: an honest document is a few levels deep. */
const MAX_DEPTH = 32;

/**
 * A JSON value (parsed JSON or msgpack) with every string in it, object keys included, made a
 * plainLine: for a document from another host, none of whose fields is trusted, wherever it is
 * shown. Nesting past MAX_DEPTH is cut to null (no honest document goes there, and a deeper one
 * would cost a stack per level).
 */
export function plainStrings<T>(value: T): T {
  return eachString(value, plainLine, 0) as T;
}

/**
 * A JSON value with every string in it stripped of escapes, newlines and tabs kept (an MCP answer
 * carries multi-line text), and every key a plainLine. Nesting past MAX_DEPTH is cut to null.
 */
export function strippedStrings<T>(value: T): T {
  return eachString(value, stripEscapes, 0) as T;
}

function eachString(value: unknown, clean: (text: string) => string, depth: number): unknown {
  if (typeof value === 'string') return clean(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => eachString(item, clean, depth + 1));
  // What Object.fromEntries(Object.entries(…)) gives, without an array per key: every warm fleet
  // command walks each peer's reply here, before V8 has compiled any of it.
  const out: Record<string, unknown> = {};
  const from = value as Record<string, unknown>;
  for (const key of Object.keys(from)) {
    const name = plainLine(key);
    const item = eachString(from[key], clean, depth + 1);
    // Defined as data, as fromEntries does: a `__proto__` key stays a key, never a prototype.
    if (name === '__proto__')
      Object.defineProperty(out, name, { value: item, writable: true, enumerable: true, configurable: true });
    else out[name] = item;
  }
  return out;
}
