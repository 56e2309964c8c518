// Untrusted text for people: commands, reasons and errors come from files other programs write,
// so each is shown as one line with terminal escapes and control characters removed.

import { shellLine } from '../../service/core/common/shell-quote.js';
import { plainLine } from '../../service/core/text/text-clean.js';

export { plainLine };

/**
 * The argv as a shell would read it, on one escape-free line: `sh -c 'echo hi'`. Each argument is
 * cleaned before quoting, so an unterminated escape can never swallow a closing quote.
 */
export function commandLine(argv: readonly string[]): string {
  return shellLine(argv.map(plainLine));
}

/** At most `width` characters, with `…` where it was cut. */
export function clip(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;
}
