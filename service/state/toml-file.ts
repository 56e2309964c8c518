// Reading a TOML settings file (the host config, a repository's dogsled.toml): the file's absence
// is the caller's to judge, every other problem is one line through the caller's `fail`. smol-toml
// loads only when a file exists, since most hosts and repositories have none.

import { readFile } from 'node:fs/promises';
import type * as z from 'zod/mini';
import type { DogsledError } from '../errors.js';
import { messageOf } from '../errors.js';
import { oneLine } from './quarantine.js';

let toml: typeof import('smol-toml') | undefined;

/** The parsed document, or undefined when the file does not exist. */
export async function readTomlFile(path: string, fail: (problem: string) => DogsledError): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw fail(`cannot read (${code ?? messageOf(error)})`);
  }
  try {
    toml ??= await import('smol-toml');
    return toml.parse(text);
  } catch (error) {
    if (!(toml && error instanceof toml.TomlError)) throw error;
    const what = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    throw fail(`malformed TOML at line ${error.line}: ${oneLine(what)}`);
  }
}

/** Unknown keys, named with their full path: reported first, as a typo explains the rest. */
export function unknownKeys(error: z.core.$ZodError): string | null {
  const unknown = error.issues.find((issue) => issue.code === 'unrecognized_keys');
  if (unknown?.code !== 'unrecognized_keys') return null;
  const names = unknown.keys.map((key) => `"${[...unknown.path, key].join('.')}"`);
  return `unknown key${names.length > 1 ? 's' : ''} ${names.join(', ')}`;
}
