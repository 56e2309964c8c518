// How values survive tmux's own parsing. tmux splits its argv into commands at any argument that
// ends in `;` (a final `\;` is a literal `;`), expands `#` formats in names, start directories and
// messages, and reads `-x` as a flag; records printed through `-F` are split here with a per-call
// random separator, so no name, path or command can forge a field or a row.

import { randomBytes } from '../../state/engine/random.js';
import type { Env } from '../port.js';

/** Separates two tmux commands in one call; never an argument (argv holds no NUL). */
export const SEP = '\u0000;';

/** An argument tmux keeps as one literal argument of the same command. */
export function literalArg(value: string): string {
  if (value === SEP) return ';';
  return value.endsWith(';') ? `${value.slice(0, -1)}\\;` : value;
}

/** A value given where tmux expands formats (`-n`, `-s`, `-c`, display-message): `#` doubled. */
export function formatLiteral(value: string): string {
  return value.replaceAll('#', '##');
}

/** Ids tmux gives: `$3` sessions, `@7` windows, `%12` panes. Targets are always ids, never names. */
export const SESSION_ID = /^\$\d+$/;
export const WINDOW_ID = /^@\d+$/;
export const PANE_ID = /^%\d+$/;

export interface RowFormat<K extends string> {
  /** The `-F` argument: every field, separated and terminated by this call's random marks. */
  format: string;
  parse(stdout: string): Record<K, string>[];
}

/**
 * A `-F` format of named fields (`pane_id`, `@dogsled-name`...) and its parser. The separators
 * carry 12 random bytes per call: a value would have to contain them to break a row.
 */
export function rowFormat<K extends string>(fields: readonly K[]): RowFormat<K> {
  const mark = randomBytes(12).toString('hex');
  const fieldSep = `\u001f${mark}\u001f`;
  const rowEnd = `\u001e${mark}\u001e`;
  const format = fields.map((field) => `#{${field}}`).join(fieldSep) + rowEnd;
  return {
    format,
    parse(stdout) {
      const rows: Record<K, string>[] = [];
      for (const chunk of stdout.split(`${rowEnd}\n`)) {
        if (chunk === '' || chunk === '\n') continue;
        const values = chunk.replace(new RegExp(`${rowEnd}\\n?$`), '').split(fieldSep);
        if (values.length !== fields.length) continue; // not a row of ours (a warning line)
        rows.push(
          Object.fromEntries(fields.map((field, i) => [field, values[i] ?? ''])) as Record<K, string>,
        );
      }
      return rows;
    },
  };
}

/** `-c DIR` and `-e K=V` for a new pane; `#` in the directory is kept literal. */
export function placeArgs(cwd: string | undefined, env: Env | undefined): string[] {
  const args: string[] = [];
  if (cwd !== undefined) args.push('-c', formatLiteral(cwd));
  for (const [key, value] of Object.entries(env ?? {})) args.push('-e', `${key}=${value}`);
  return args;
}

/**
 * The pane's program after `--`. tmux runs one lone argument through `sh -c`, so a single word goes
 * through `exec "$0"` instead and stays one word whatever it holds.
 */
export function commandArgs(argv: readonly string[]): string[] {
  if (argv.length === 0) return [];
  if (argv.length === 1) return ['--', 'sh', '-c', 'exec "$0"', argv[0] as string];
  return ['--', ...argv];
}
