// Untrusted values inside one-line messages: quoted, with every control character (C0, DEL and the
// C1 range that terminals also act on) shown as \xNN instead of being sent to the terminal, and cut
// to a bounded length.

const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

export function visible(text: string, max = 80): string {
  const shown = text.replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const cut = shown.length <= max ? shown : `${shown.slice(0, max - 1)}…`;
  return `"${cut.replaceAll('"', '\\"')}"`;
}
