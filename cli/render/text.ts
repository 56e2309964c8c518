// A command for people: an argv comes from files other programs write, so it is shown as one line
// with terminal escapes and control characters removed (service/core/text/clean.ts).

import { shellLine } from '../../service/core/common/shell-quote.js';
import { plainLine } from '../../service/core/text/clean.js';

/**
 * The argv as a shell would read it, on one escape-free line: `sh -c 'echo hi'`. Each argument is
 * cleaned before quoting, so an unterminated escape can never swallow a closing quote.
 */
export function commandLine(argv: readonly string[]): string {
  return shellLine(argv.map(plainLine));
}
