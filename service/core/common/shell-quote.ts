// POSIX shell quoting for values spliced into a command line that `sh -c` will parse: each value
// becomes exactly one word, whatever it holds. Single quotes are the only quoting POSIX sh honours
// with no exceptions inside, so a value is wrapped in them and each `'` becomes `'\''`.

/**
 * Characters that mean nothing to sh anywhere in a word. `=` is left out (a first word `A=b` is an
 * assignment), and so are `~` (tilde expansion), globs, `{}` and every separator.
 */
const BARE = /^[A-Za-z0-9_@%+:,./-]+$/;

/** One shell word for `value`: bare when that is safe, else single-quoted; `''` for the empty string. */
export function shellWord(value: string): string {
  if (value === '') return "''";
  if (BARE.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A command line that sh parses back into exactly `argv`. */
export function shellLine(argv: readonly string[]): string {
  return argv.map(shellWord).join(' ');
}
