// Text in terminal cells. Names, commands and todo lines come from other programs, so before they
// are measured they are made displayable: escapes and controls removed, zero-width marks dropped,
// and every character whose width terminals and blessed disagree on (emoji, anything outside the
// Basic Multilingual Plane) replaced by U+FFFD. What is left is one cell wide, or two for East Asian
// wide characters, on which both agree, so a clipped line is exactly as wide as the model says.

import { plainLine } from '../../service/core/text/clean.js';

export const REPLACEMENT = '\uFFFD';
const ELLIPSIS = '…';

/** Wide ranges (East Asian Wide and Fullwidth) both blessed's table and wcwidth agree on. */
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff01, 0xff60],
  [0xffe0, 0xffe6],
];

/** Below the first wide character every character is one cell. */
const WIDE_FROM = 0x1100;

/** Zero-width: combining marks, joiners, direction marks, variation selectors, BOM. */
const ZERO: ReadonlyArray<readonly [number, number]> = [
  [0x0300, 0x036f],
  [0x0483, 0x0489],
  [0x0591, 0x05bd],
  [0x0610, 0x061a],
  [0x064b, 0x065f],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
  [0xfe20, 0xfe2f],
  [0xfeff, 0xfeff],
];

/** Below the first zero-width mark nothing is dropped or replaced (EMOJI_BMP and surrogates are above). */
const ZERO_FROM = 0x0300;

/**
 * Emoji with default emoji presentation inside the BMP: wide to wcwidth, narrow to blessed. Ambiguous
 * in practice, so replaced (U+231A watch, U+2705 check mark, U+2B50 star, ...).
 */
const EMOJI_BMP: ReadonlyArray<readonly [number, number]> = [
  [0x231a, 0x231b],
  [0x23e9, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274e],
  [0x2753, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b55],
];

function inRanges(point: number, ranges: ReadonlyArray<readonly [number, number]>): boolean {
  for (const [low, high] of ranges) if (point >= low && point <= high) return true;
  return false;
}

/** One escape-free line whose every character has a width both blessed and the terminal agree on. */
export function displayText(text: string): string {
  const plain = plainLine(text);
  // Most text (ids, commands, hosts) has nothing below the first zero-width mark: kept as it is.
  if (belowAll(plain, ZERO_FROM)) return plain;
  let out = '';
  for (const char of plain) {
    const point = char.codePointAt(0) as number;
    if (inRanges(point, ZERO)) continue;
    if (point > 0xffff || (point >= 0xd800 && point <= 0xdfff) || inRanges(point, EMOJI_BMP)) {
      out += REPLACEMENT;
    } else out += char;
  }
  return out;
}

/** Whether every UTF-16 unit of `text` is below `code`. */
function belowAll(text: string, code: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= code) return false;
  return true;
}

/** Width in cells of a character of displayText's output. */
export function charCells(char: string): number {
  const point = char.codePointAt(0) as number;
  return point >= WIDE_FROM && inRanges(point, WIDE) ? 2 : 1;
}

/**
 * Width in cells of displayText's output: a character (a code point, a surrogate pair's two units
 * included) is two cells in WIDE, else one. Walked by UTF-16 unit, since a board's every redraw
 * measures each of its lines many times.
 */
export function cells(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < WIDE_FROM) width += 1;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A pair is one character outside the BMP: one cell, like any character outside WIDE.
      width += 1;
      i += 1;
    } else width += inRanges(code, WIDE) ? 2 : 1;
  }
  return width;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** At most `width` cells, with `…` where it was cut (never half of a wide character). */
export function clipCells(text: string, width: number): string {
  if (width <= 0) return '';
  if (cells(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = charCells(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return out + ELLIPSIS;
}

/** Exactly `width` cells: clipped, then padded with spaces on the right. */
export function fitCells(text: string, width: number): string {
  const clipped = clipCells(text, width);
  return clipped + ' '.repeat(Math.max(0, width - cells(clipped)));
}

/** `text` cut into lines of at most `width` cells (at least one line; a wide character never split). */
export function wrapCells(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const char of text) {
    const w = charCells(char);
    if (used + w > width && line !== '') {
      lines.push(line);
      line = '';
      used = 0;
    }
    line += char;
    used += w;
  }
  lines.push(line);
  return lines;
}

/**
 * At most `width` cells, shortened in the middle (`feat/pars…-tests`): a name's start and end are
 * what tell two apart (a branch's prefix and topic, a model's vendor and version).
 */
export function middleCells(text: string, width: number): string {
  if (width <= 0) return '';
  if (cells(text) <= width) return text;
  if (width <= 2) return clipCells(text, width);
  const chars = [...text];
  const room = width - 1;
  const headRoom = Math.ceil(room / 2);
  let head = '';
  let used = 0;
  for (const char of chars) {
    const w = charCells(char);
    if (used + w > headRoom) break;
    head += char;
    used += w;
  }
  let tail = '';
  let tailUsed = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const char = chars[i] as string;
    const w = charCells(char);
    if (used + tailUsed + w > room) break;
    tail = char + tail;
    tailUsed += w;
  }
  return `${head}${ELLIPSIS}${tail}`;
}

/**
 * `text` in lines of at most `width` cells, broken at spaces where it can be (a word longer than a
 * line is broken inside it): wrapped, never cut, so a reason or an id reaches the screen whole.
 */
export function wrapWords(text: string, width: number): string[] {
  if (width <= 0) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (cells(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    if (cells(word) <= width) {
      line = word;
      continue;
    }
    const pieces = wrapCells(word, width);
    line = pieces.pop() ?? '';
    lines.push(...pieces);
  }
  lines.push(line);
  return lines;
}
