// Asks the terminal for its background colour (OSC 11) so the default theme can be dark or light. The
// board paints first and repaints if an answer comes; the question is withdrawn after a short bound,
// since many terminals (tmux without an outer answer among them) never reply. The reply arrives on
// stdin among the keys, so until then each chunk of input is looked at before blessed parses it, and
// the reply is taken out: its hex digits would otherwise reach blessed as key presses (`d`, `b`...).

import { type Background, backgroundOfReply } from './model/theme.js';

/** Long enough for a local or SSH terminal to answer, short enough that a late answer is not awaited. */
export const BACKGROUND_BOUND_MS = 300;
const QUERY = '\u001b]11;?\u001b\\';
const REPLY = /\u001b\]11;[^\u0007\u001b]*(?:\u0007|\u001b\\)/;

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
  const stop = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    input.emit = original;
  };
  const filtered: Emit = function (event, ...args) {
    if (event === 'data' && !done) {
      const chunk = args[0];
      const text = Buffer.isBuffer(chunk) ? chunk.toString('latin1') : typeof chunk === 'string' ? chunk : '';
      const reply = REPLY.exec(text);
      if (reply) {
        stop();
        const background = backgroundOfReply(reply[0]);
        if (background) answer(background);
        const rest = text.slice(0, reply.index) + text.slice(reply.index + reply[0].length);
        if (rest === '') return true;
        return emit.call(this, event, Buffer.isBuffer(chunk) ? Buffer.from(rest, 'latin1') : rest);
      }
    }
    return emit.call(this, event, ...args);
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
