// Asks the terminal for its background colour (OSC 11) so the default theme can be dark or light. The
// board paints first and repaints if an answer comes; the question is withdrawn after a short bound,
// since many terminals (tmux without an outer answer among them) never reply. The reply arrives on
// stdin among the keys, possibly in pieces, so until then input is looked at before blessed parses
// it and the reply is taken out: its hex digits would otherwise reach blessed as key presses (`d`
// dismisses a row). What only might begin a reply is held back until the next piece or the bound.

import { type Background, backgroundOfReply } from './model/theme.js';

/** Long enough for a local or SSH terminal to answer, short enough that a late answer is not awaited. */
export const BACKGROUND_BOUND_MS = 300;
const QUERY = '\u001b]11;?\u001b\\';
const START = '\u001b]11;';
const REPLY = /\u001b\]11;[^\u0007\u001b]*(?:\u0007|\u001b\\)/;

/** Where a reply may begin in `text` that is not complete yet: its index, else -1. */
function partialStart(text: string): number {
  // A reply begun (its terminator still to come, an ST's ESC perhaps already here).
  const open = text.indexOf(START);
  if (open >= 0) return open;
  // The first bytes of one at the very end.
  const at = text.lastIndexOf('\u001b');
  return at >= 0 && START.startsWith(text.slice(at)) ? at : -1;
}

/**
 * Sends the question on `output` and calls `answer` once with the background the terminal reports.
 * Returns a function that withdraws it (also done by itself after `boundMs`).
 */
export function askBackground(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  answer: (background: Background) => void,
  boundMs = BACKGROUND_BOUND_MS,
): () => void {
  type Emit = (this: NodeJS.ReadStream, event: string | symbol, ...args: unknown[]) => boolean;
  const original = input.emit;
  const emit = original as unknown as Emit;
  let done = false;
  let held = '';
  const pass = (text: string) => {
    if (text !== '') emit.call(input, 'data', Buffer.from(text, 'latin1'));
  };
  const stop = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    input.emit = original;
    const rest = held;
    held = '';
    pass(rest);
  };
  const filtered: Emit = function (event, ...args) {
    if (event !== 'data' || done) return emit.call(this, event, ...args);
    const chunk = args[0];
    const text = Buffer.isBuffer(chunk) ? chunk.toString('latin1') : typeof chunk === 'string' ? chunk : '';
    const joined = held + text;
    const reply = REPLY.exec(joined);
    if (reply) {
      const rest = joined.slice(0, reply.index) + joined.slice(reply.index + reply[0].length);
      held = '';
      const background = backgroundOfReply(reply[0]);
      stop();
      if (background) answer(background);
      pass(rest);
      return true;
    }
    if (held !== '' && partialStart(joined) !== 0) {
      // What was held began no reply: it goes on as the chunk it came in (an Escape key, alone, is
      // not the Alt of the next key), and this chunk is looked at on its own.
      const before = held;
      held = '';
      pass(before);
      return filtered.call(this, event, ...args);
    }
    const at = partialStart(joined);
    if (at >= 0) {
      pass(joined.slice(0, at).slice(held.length));
      held = joined.slice(at);
      return true;
    }
    held = '';
    pass(text);
    return true;
  };
  input.emit = filtered as unknown as typeof input.emit;
  const timer = setTimeout(stop, boundMs);
  timer.unref();
  try {
    output.write(QUERY);
  } catch {
    stop();
  }
  return stop;
}
