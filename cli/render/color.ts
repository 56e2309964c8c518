// ANSI colour for terminals only: callers pass `enabled` (a TTY without NO_COLOR), so piped output
// and JSON never carry escape codes.

export interface Paint {
  red: (text: string) => string;
  yellow: (text: string) => string;
  green: (text: string) => string;
  dim: (text: string) => string;
  bold: (text: string) => string;
}

const wrap = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const plain = (text: string) => text;

export function paint(enabled: boolean): Paint {
  if (!enabled) return { red: plain, yellow: plain, green: plain, dim: plain, bold: plain };
  return {
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    green: wrap(32, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}
