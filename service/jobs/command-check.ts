// Refuses a job whose command cannot run before anything is created: a name must be an executable
// file on PATH, and a path (anything with a slash, relative to the job's directory) an executable
// file. This checks the local host only; a remote host's exec reports its own `not found`. Also
// refuses arguments that are not UTF-8 text (see undecodableArgument).

import { isUtf8 } from 'node:buffer';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DogsledError } from '../core/common/errors.js';
import { quotedBytes, squeezedLine } from '../core/text/clean.js';
import { findExecutable } from '../process/find-executable.js';
import { ownArgvWords } from '../process/own-argv.js';
import { OWN_CMDLINE_PATH } from '../process/process-table.js';

/**
 * Throws `<prefix>command not found: foo` (exit 2) when the job's command cannot run here; a path
 * that is there but cannot run says why: `command is a directory: ./x`, `command not executable: ./x`.
 */
export async function checkCommand(
  command: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  prefix = 'run: ',
): Promise<void> {
  const [name] = command;
  if (name === undefined || (await findExecutable(name, cwd, env.PATH)) === undefined) {
    throw new DogsledError(`${prefix}${whyNot(name ?? '', cwd)}: ${squeezedLine(name ?? '')}`);
  }
}

/** Why `name` (which did not resolve) cannot run; a name looked up on PATH is simply not found. */
function whyNot(name: string, cwd: string): string {
  if (!name.includes('/')) return 'command not found';
  try {
    const info = statSync(resolve(cwd, name), { throwIfNoEntry: false });
    if (info === undefined) return 'command not found';
    return info.isDirectory() ? 'command is a directory' : 'command not executable';
  } catch {
    return 'command not found';
  }
}

/**
 * The first of `args` (this process's arguments after the script, as Node decoded them) whose bytes
 * are not UTF-8, quoted with \xNN escapes (quotedBytes); undefined when all are text.
 *
 * Such an argument is refused rather than run. Node decodes argv as UTF-8 and replaces a bad byte
 * with U+FFFD, so `run -- rm $'f\xff'` would act on another name. Running the exact bytes would
 * need an encoding for byte strings in every record, ticket, snapshot and peer message (all JSON
 * text), and a shell trampoline at spawn time, since Node passes a child's arguments only as UTF-8;
 * a refusal before anything is created can never touch the wrong file, and `sh -c` with printf
 * escapes still reaches any name. Only an argument holding U+FFFD can hide a bad byte, so the raw
 * argv (the kernel's copy of it) is read only then; without it such an argument is refused too.
 */
export async function undecodableArgument(
  args: readonly string[],
  cmdline = OWN_CMDLINE_PATH,
): Promise<string | undefined> {
  const suspect = args.findIndex((arg) => arg.includes('\uFFFD'));
  if (suspect < 0) return undefined;
  const words = (await ownArgvWords(cmdline)) ?? [];
  // Node's own options sit before the script in cmdline, so the arguments are its last entries.
  const tail = words.length >= args.length ? words.slice(words.length - args.length) : undefined;
  if (tail === undefined || tail.some((word, i) => word.toString('utf8') !== args[i])) {
    return quotedBytes(Buffer.from(args[suspect] ?? '', 'utf8'));
  }
  const bad = tail.find((word) => !isUtf8(word));
  return bad === undefined ? undefined : quotedBytes(bad);
}

/** Throws `<command>: argument "f\xff" is not valid UTF-8: ...` when undecodableArgument finds one. */
export async function checkArgumentsText(args: readonly string[], command = 'run'): Promise<void> {
  const bad = await undecodableArgument(args);
  if (bad === undefined) return;
  throw new DogsledError(
    `${command}: argument ${bad} is not valid UTF-8: job arguments must be text ` +
      `(a shell can build such bytes: printf '\\377' inside sh -c)`,
  );
}
