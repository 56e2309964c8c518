// The command line typed into a pane's shell: POSIX quoting (service/core/common/shell-quote.ts), plus a
// refusal of control characters, which cannot be typed safely: a newline would submit the line
// early, an escape would reach the terminal. Herdr refuses them in agent arguments for the same reason.

import { DogsledError } from '../core/common/errors.js';
import { shellLine } from '../core/common/shell-quote.js';

const CONTROL = /[\u0000-\u001f\u007f]/;

/** One line a POSIX shell (sh, dash, bash, zsh, ksh) parses back into exactly `argv`. */
export function shellQuote(argv: readonly string[]): string {
  const bad = argv.find((word) => CONTROL.test(word));
  if (bad !== undefined) {
    throw new DogsledError(
      `cannot type ${JSON.stringify(bad)} into a shell: it contains a control character`,
    );
  }
  return shellLine(argv);
}
