// Reading a TOML settings file (the host config, a repository's dogsled.toml): the file's absence
// is the caller's to judge, every other problem is one line through the caller's `fail`. smol-toml
// loads only when a file exists, since most hosts and repositories have none.

import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import type * as z from 'zod/mini';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';
import { FileTooLarge, readFdBounded } from './bounded-read.js';

let toml: typeof import('smol-toml') | undefined;

/** The parsed document, or undefined when the file does not exist. */
export async function readTomlFile(path: string, fail: (problem: string) => DogsledError): Promise<unknown> {
  let text: string;
  let fd: number | undefined;
  try {
    // Opened without blocking, then checked: a FIFO in a config's place is refused, never waited
    // on, and a directory or device is no config either. Synchronous: every command that judges a
    // host reads this small file first, and node:fs/promises costs a hot command's start-up.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) throw fail('not a regular file');
    text = readFdBounded(fd);
  } catch (error) {
    if (error instanceof DogsledError) throw error;
    if (error instanceof FileTooLarge) throw fail(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw fail(`cannot read (${code ?? messageOf(error)})`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  try {
    toml ??= await import('smol-toml');
    return toml.parse(text);
  } catch (error) {
    if (!(toml && error instanceof toml.TomlError)) throw error;
    const what = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    throw fail(`malformed TOML at line ${error.line}: ${squeezedLine(what)}`);
  }
}

/** Unknown keys, named with their full path: reported first, as a typo explains the rest. */
export function unknownKeys(error: z.core.$ZodError): string | null {
  const unknown = error.issues.find((issue) => issue.code === 'unrecognized_keys');
  if (unknown?.code !== 'unrecognized_keys') return null;
  const names = unknown.keys.map((key) => `"${[...unknown.path, key].join('.')}"`);
  return `unknown key${names.length > 1 ? 's' : ''} ${names.join(', ')}`;
}
