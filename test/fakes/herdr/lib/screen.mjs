// A pane's output history: the last MAX_LINES lines of what its terminal printed, kept raw, read
// back as Herdr's `pane.read` sources. There is no terminal emulator: "visible" is the last screen
// height of lines; text reads strip escape sequences and apply carriage returns and backspaces.
import { StringDecoder } from 'node:string_decoder';

export const MAX_LINES = 2000;
const MAX_READ_LINES = 1000;
const RECENT_DEFAULT = 80;

const ESCAPES =
  // OSC ... BEL/ST, DCS/SOS/PM/APC ... ST, CSI, charset designation, two-byte escapes.
  /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()*+][0-9A-Za-z]|\x1b[@-Z\\-_`-~]|\x9b[0-?]*[ -/]*[@-~]/g;

export function stripAnsi(text) {
  return text.replace(ESCAPES, '');
}

/** What a terminal shows for one printed line: CR returns to column 0, BS steps back. */
function renderPlain(raw) {
  const cells = [];
  let column = 0;
  for (const char of stripAnsi(raw)) {
    if (char === '\r') column = 0;
    else if (char === '\b') column = Math.max(0, column - 1);
    else if (char === '\t') {
      const next = (Math.floor(column / 8) + 1) * 8;
      for (; column < next; column++) cells[column] ??= ' ';
    } else if (char < ' ' || char === '\x7f') {
      // other control characters print nothing
    } else cells[column++] = char;
  }
  return Array.from(cells, (cell) => cell ?? ' ').join('');
}

export class Screen {
  #decoder = new StringDecoder('utf8');
  #lines = [];
  #partial = '';
  /** Bumped on every chunk, so waiters can tell new output from old. */
  revision = 0;

  constructor(rows) {
    this.rows = rows;
  }

  write(chunk) {
    const text = this.#decoder.write(chunk);
    if (text === '') return;
    this.revision += 1;
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop() ?? '';
    for (const line of parts) this.#lines.push(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (this.#lines.length > MAX_LINES) this.#lines.splice(0, this.#lines.length - MAX_LINES);
  }

  #all() {
    return this.#partial === '' ? this.#lines : [...this.#lines, this.#partial];
  }

  /** Raw text of everything kept (tests use it to assert that nothing was typed). */
  rawText() {
    return this.#all().join('\n');
  }

  /** Returns { text, truncated } for a `pane.read` request. */
  read({ source, lines, format, stripAnsi: strip }) {
    const all = this.#all();
    const limit = lines === undefined ? undefined : Math.min(lines, MAX_READ_LINES);
    let picked;
    let truncated;
    if (source === 'visible' || source === 'detection') {
      const screen = all.slice(-this.rows);
      picked = limit === undefined ? screen : screen.slice(screen.length - Math.min(limit, screen.length));
      truncated = picked.length < all.length;
    } else {
      const count = limit ?? RECENT_DEFAULT;
      picked = count === 0 ? [] : all.slice(-count);
      truncated = all.length > picked.length;
    }
    const render = format === 'ansi' || !strip ? (line) => line.replace(/\r/g, '') : renderPlain;
    return { text: picked.map(render).join('\n'), truncated };
  }
}
