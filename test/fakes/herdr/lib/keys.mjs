// Key names accepted by `pane.send_input {keys}` (Herdr's config key combos: `enter`, `ctrl+c`,
// `alt+x`, `shift+tab`, the alias `C-c`...), encoded as a legacy xterm would send them.

const NAMED = {
  enter: '\r',
  return: '\r',
  tab: '\t',
  backtab: '\x1b[Z',
  esc: '\x1b',
  escape: '\x1b',
  backspace: '\x7f',
  space: ' ',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  home: '\x1b[H',
  end: '\x1b[F',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  insert: '\x1b[2~',
  delete: '\x1b[3~',
  del: '\x1b[3~',
  plus: '+',
  f1: '\x1bOP',
  f2: '\x1bOQ',
  f3: '\x1bOR',
  f4: '\x1bOS',
  f5: '\x1b[15~',
  f6: '\x1b[17~',
  f7: '\x1b[18~',
  f8: '\x1b[19~',
  f9: '\x1b[20~',
  f10: '\x1b[21~',
  f11: '\x1b[23~',
  f12: '\x1b[24~',
};

/** Bytes for one key name, or undefined when Herdr would answer `invalid_key`. */
export function encodeKey(name) {
  const trimmed = name.trim();
  const normalised = trimmed === 'C-c' || trimmed === 'c-c' ? 'ctrl+c' : trimmed;
  const parts = normalised.split('+');
  const base = parts.pop();
  if (base === undefined || base === '') return undefined;
  const modifiers = parts.map((part) => part.toLowerCase());
  if (modifiers.some((m) => !['ctrl', 'control', 'alt', 'meta', 'shift'].includes(m))) return undefined;
  const ctrl = modifiers.includes('ctrl') || modifiers.includes('control');
  const alt = modifiers.includes('alt') || modifiers.includes('meta');
  const shift = modifiers.includes('shift');
  let bytes;
  const lower = base.toLowerCase();
  if (NAMED[lower] !== undefined) {
    bytes = lower === 'tab' && shift ? NAMED.backtab : NAMED[lower];
  } else if ([...base].length === 1) {
    bytes = shift ? base.toUpperCase() : base;
    if (ctrl) {
      const code = base.toUpperCase().charCodeAt(0);
      if (code >= 0x40 && code <= 0x5f) bytes = String.fromCharCode(code - 0x40);
      else if (base === ' ') bytes = '\0';
      else return undefined;
    }
  } else {
    return undefined;
  }
  return alt ? `\x1b${bytes}` : bytes;
}
