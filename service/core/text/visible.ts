// Untrusted values inside one-line messages, quoted and cut to a bounded length: `visible` shows every
// control character (C0, DEL and the C1 range that terminals also act on) as \xNN, for values whose
// exact bytes matter (a launch line Herdr cannot type); `shown` drops escape sequences whole, for
// values a user typed (no `[2J` remnant reaches the terminal).

import { plainLine } from './text-clean.js';

const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

export function visible(text: string, max = 80): string {
  const shown = text.replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const cut = shown.length <= max ? shown : `${shown.slice(0, max - 1)}…`;
  return `"${cut.replaceAll('"', '\\"')}"`;
}

/**
 * A value a user typed, inside a one-line error: quoted, with escape sequences and control
 * characters removed whole (no `[2J` remnant reaches the terminal), and cut to a bounded length.
 */
export function shown(text: string, max = 80): string {
  const plain = plainLine(text);
  const cut = plain.length <= max ? plain : `${plain.slice(0, max - 1)}…`;
  return `"${cut.replaceAll('"', '\\"')}"`;
}
