// The user on a terminal, as the actions' UserIO sees them (service/actions/verb-io.ts): a progress
// line rewritten in place on stderr, and a yes/no question read from stdin. Neither touches a
// stream that is not a terminal: piped stderr stays clean, and a question nobody can answer there
// is `unasked` (the action says what that means for it).

import { createInterface } from 'node:readline/promises';
import type { Answer, UserIO } from '../service/actions/verb-io.js';

/** One line rewritten in place, and only on a terminal; '' clears it. */
export function progressOnTerminal(): UserIO['progress'] {
  if (!process.stderr.isTTY) return undefined;
  return (text) => process.stderr.write(`\r\x1b[K${text === '' ? '' : `dogsled: ${text}…`}`);
}

/** `question [y/N]` on stderr, the answer from stdin: Ctrl-D is a no; Ctrl-C interrupts. */
export async function askOnTerminal(question: string): Promise<Answer> {
  if (!(process.stdin.isTTY && process.stderr.isTTY)) return 'unasked';
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim()) ? 'yes' : 'no';
  } catch (error) {
    // readline aborts the question on Ctrl-D and on Ctrl-C alike.
    if ((error as Error).name !== 'AbortError') throw error;
    process.stderr.write('\n');
    return /Ctrl\+C/.test((error as Error).message) ? 'interrupted' : 'no';
  } finally {
    rl.close();
  }
}
