// Removes terminal control sequences from untrusted text (pane output, transcripts, logs, what a
// peer or an agent sends) before it is shown, stored for display or delivered. One pass, no regular
// expressions: hostile input cannot make it slow, and an unterminated string sequence swallows the
// rest of the text rather than leaking it. Kept: printable text, `\n` and `\t`. Removed: CSI, OSC,
// DCS/SOS/PM/APC strings (7- and 8-bit forms), other escape sequences, C0 controls (including
// `\r`), DEL and C1 controls, and the characters that show nothing yet change what is read: bidi
// overrides, embeddings, isolates and marks (text that reads in another order than it runs),
// zero-width spaces and joiners, and Unicode tags (invisible ASCII). Callers import it from clean.ts,
// the text vocabulary, beside the forms built on it (one line, clipped, quoted).

const ESC = 0x1b;
const BEL = 0x07;
const ST_8BIT = 0x9c;

/** Introducers of string sequences that run until ST (or BEL for OSC): OSC, DCS, SOS, PM, APC. */
const STRING_7BIT = new Set([0x5d, 0x50, 0x58, 0x5e, 0x5f]); // ] P X ^ _
const STRING_8BIT = new Set([0x9d, 0x90, 0x98, 0x9e, 0x9f]);
const CSI_7BIT = 0x5b; // [
const CSI_8BIT = 0x9b;
/** Below this, no character is invisible: plain ASCII and Latin text costs one comparison. */
const FIRST_INVISIBLE = 0x061c;

export function stripEscapes(text: string): string {
  let out = '';
  let plainFrom = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    const hidden = c >= FIRST_INVISIBLE ? invisibleLength(text, i, c) : 0;
    if (hidden === 0 && !isControl(c)) {
      i++;
      continue;
    }
    if (i > plainFrom) out += text.slice(plainFrom, i);
    if (hidden > 0) {
      i += hidden;
    } else if (c === 0x0a || c === 0x09) {
      out += text[i];
      i++;
    } else if (c === ESC) {
      i = skipEscape(text, i + 1);
    } else if (c === CSI_8BIT) {
      i = skipCsi(text, i + 1);
    } else if (STRING_8BIT.has(c)) {
      i = skipString(text, i + 1, c === 0x9d);
    } else {
      i++;
    }
    plainFrom = i;
  }
  if (plainFrom === 0) return text;
  return out + text.slice(plainFrom);
}

function isControl(c: number): boolean {
  return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

/**
 * UTF-16 units of the invisible character at `i` (`c` is its first unit), 0 when it is not one:
 * U+061C (Arabic letter mark), U+180E (Mongolian vowel separator), U+200B-U+200F (zero-width
 * space, non-joiner and joiner; left-to-right and right-to-left marks), U+202A-U+202E (bidi
 * embeddings and overrides), U+2060-U+206F (word joiner, invisible operators, bidi isolates,
 * deprecated format controls), U+FEFF (zero-width no-break space), and the tags U+E0000-U+E007F
 * (a surrogate pair: U+DB40, then U+DC00-U+DC7F).
 */
function invisibleLength(text: string, i: number, c: number): number {
  if (
    c === 0x061c ||
    c === 0x180e ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2060 && c <= 0x206f) ||
    c === 0xfeff
  ) {
    return 1;
  }
  if (c === 0xdb40) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdc7f) return 2;
  }
  return 0;
}

/** `i` is just after ESC. Returns the index after the whole sequence. */
function skipEscape(text: string, i: number): number {
  if (i >= text.length) return i;
  const c = text.charCodeAt(i);
  if (c === CSI_7BIT) return skipCsi(text, i + 1);
  if (STRING_7BIT.has(c)) return skipString(text, i + 1, c === 0x5d);
  // nF sequences: intermediates 0x20-0x2F, then one final byte (for example ESC ( B).
  let j = i;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  if (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x7e) return j + 1;
  // ESC followed by a control or nothing usable: drop the ESC alone, keep the rest for the scanner.
  return j;
}

/** Parameters 0x30-0x3F, intermediates 0x20-0x2F, one final byte 0x40-0x7E. */
function skipCsi(text: string, i: number): number {
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c >= 0x40 && c <= 0x7e) return j + 1;
    if (c < 0x20 || c > 0x3f) return j; // malformed: stop before the foreign character
    j++;
  }
  return j;
}

/** Runs to ST (ESC \ or 0x9C), or BEL when `belEnds` (OSC); unterminated means to the end. */
function skipString(text: string, i: number, belEnds: boolean): number {
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === ST_8BIT) return j + 1;
    if (belEnds && c === BEL) return j + 1;
    // Any other ESC ends the string too and starts a sequence of its own.
    if (c === ESC) return text.charCodeAt(j + 1) === 0x5c ? j + 2 : j;
    j++;
  }
  return j;
}
