// The Pi panel's Profiles tab's one write: a profile's last prompt file (spec, "--profile": "The
// profile panel edits the last file"), edited through the front end's editor (`ask`) and replaced
// atomically. Only a regular file is opened (a FIFO would hang Pi, a directory cannot be a prompt),
// and a file that changed on disk while the editor was open is not overwritten. Every outcome is one escape-free line.

import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { systemErrorText } from '../core/common/system-errors.js';
import { plainLine } from '../core/text/clean.js';
import { writeAtomic } from '../state/engine/atomic-write.js';

/** A prompt larger than this is not a prompt anyone edits in Pi's editor. */
const PROMPT_MAX_BYTES = 1024 * 1024;

/** Asks for the new text, prefilled with the current one; undefined when the user cancels. */
export type AskText = (title: string, prefill: string) => Promise<string | undefined>;

const why = (error: unknown): string => plainLine(systemErrorText(error));

/** The regular file behind `file` (symlinks followed, so the link stays a link) and its text. */
async function readPrompt(file: string): Promise<{ real: string; text: string; mode: number }> {
  const real = await realpath(file);
  const info = await stat(real);
  if (!info.isFile()) throw new Error('not a regular file');
  if (info.size > PROMPT_MAX_BYTES) throw new Error(`larger than ${PROMPT_MAX_BYTES} bytes`);
  // O_NONBLOCK: a file swapped for a FIFO after the stat does not hang Pi on open.
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const again = await handle.stat();
    if (!again.isFile()) throw new Error('not a regular file');
    return { real, text: await handle.readFile('utf8'), mode: again.mode & 0o777 };
  } finally {
    await handle.close();
  }
}

export async function editPrompt(profile: string, file: string, ask: AskText): Promise<string> {
  const shown = plainLine(file);
  let before: Awaited<ReturnType<typeof readPrompt>>;
  try {
    before = await readPrompt(file);
  } catch (error) {
    return `cannot edit ${shown}: ${why(error)}`;
  }
  const edited = await ask(`${plainLine(profile)}: ${plainLine(basename(file))}`, before.text);
  if (edited === undefined) return `${shown}: not changed (editor closed)`;
  if (edited === before.text) return `${shown}: unchanged`;
  try {
    const now = await readPrompt(file);
    if (now.real !== before.real || now.text !== before.text)
      return `${shown}: changed on disk while it was open; not written`;
  } catch (error) {
    return `cannot edit ${shown}: ${why(error)}`;
  }
  try {
    await writeAtomic(before.real, edited, { mode: before.mode });
  } catch (error) {
    // writeAtomic's own failure already says `cannot write <path>: <why>`.
    return plainLine(error instanceof Error ? error.message : String(error));
  }
  return `saved ${shown}`;
}
