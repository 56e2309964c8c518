// The anchor marker (spec, "Repository configuration", step 5): when Herdr had to open the main
// checkout's workspace to show a linked worktree, dogsled notes that workspace id in the Git common
// directory as `agent-worktree-anchor`, so close can later close the anchor it caused and no other.

import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { writeAtomic } from '../state/engine/atomic-write.js';

export const ANCHOR_FILE = 'agent-worktree-anchor';
/** As git's own files in the common directory: readable by the repository's other tools. */
const ANCHOR_MODE = 0o644;

/** Herdr workspace ids are short and printable (`w1`, `wA`); anything else in the file is not ours. */
const WORKSPACE_ID = /^[A-Za-z0-9_:-]{1,64}$/;

export function anchorPath(commonDir: string): string {
  return join(commonDir, ANCHOR_FILE);
}

export async function writeAnchor(commonDir: string, workspace: string): Promise<void> {
  if (!WORKSPACE_ID.test(workspace))
    throw new Error(`not a Herdr workspace id: ${JSON.stringify(workspace)}`);
  const file = anchorPath(commonDir);
  try {
    await writeAtomic(file, `${workspace}\n`, { mode: ANCHOR_MODE });
  } catch (error) {
    const cause = error instanceof DogsledError && error.cause !== undefined ? error.cause : error;
    throw new DogsledError(`cannot record the anchor workspace in ${file}: ${messageOf(cause)}`, { cause });
  }
}

/** The recorded anchor, or null when there is none or the file holds something else. */
export async function readAnchor(commonDir: string): Promise<string | null> {
  const file = anchorPath(commonDir);
  let text: string;
  try {
    // Only a regular file is read: a FIFO in its place would block the reader for ever.
    if (!(await lstat(file)).isFile()) return null;
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  const id = text.trim();
  return WORKSPACE_ID.test(id) ? id : null;
}
