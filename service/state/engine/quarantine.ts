// Moves a corrupt state file aside as `<name>.bad-<ms>` so the next writer starts fresh and a human
// can still inspect what was there. A quarantine never overwrites an earlier one (hard link first,
// which fails on an existing name), and never moves a file that a writer replaced after we read it.
// With `keep`, the corrupt file is only copied aside: its caller replaces it with a backup, so the
// name never reads as missing in between.

import { copyFile, link, lstat, rename, stat, unlink } from 'node:fs/promises';
import { basename } from 'node:path';
import { squeezedLine } from '../../core/text/clean.js';

/** Which version of the file was judged corrupt: a rename by a writer changes dev/ino. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

const MAX_SUFFIX = 1_000;
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP']);

/**
 * Moves `file` to a free `<file>.bad-<ms>[-n]` name if it is still the version described by
 * `identity`. Returns the new path, or undefined when the file vanished or was replaced meanwhile.
 */
export async function quarantineFile(
  file: string,
  identity: FileIdentity,
  now: number,
  options: { keep?: boolean } = {},
): Promise<string | undefined> {
  for (let n = 0; n < MAX_SUFFIX; n++) {
    const target = n === 0 ? `${file}.bad-${now}` : `${file}.bad-${now}-${n}`;
    const outcome = await moveAside(file, target, identity, Boolean(options.keep));
    if (outcome === 'taken') continue;
    return outcome === 'moved' ? target : undefined;
  }
  throw new Error(`quarantine ${basename(file)}: ${MAX_SUFFIX} quarantined copies at ${now} already exist`);
}

type Outcome = 'moved' | 'taken' | 'gone';

async function moveAside(
  file: string,
  target: string,
  identity: FileIdentity,
  keep: boolean,
): Promise<Outcome> {
  try {
    await link(file, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return 'taken';
    if (code === 'ENOENT') return 'gone';
    // Filesystems without hard links: check-then-rename is the best available, still never clobbering
    // a name that exists when we look.
    if (!NO_HARD_LINKS.has(code ?? '')) throw error;
    return renameAside(file, target, identity, keep);
  }
  const linked = await stat(target);
  if (!sameFile(linked, identity)) {
    // A writer renamed a fresh file into place after we read the corrupt one: keep the fresh one.
    await unlink(target);
    return 'gone';
  }
  if (!keep) await unlink(file);
  return 'moved';
}

async function renameAside(
  file: string,
  target: string,
  identity: FileIdentity,
  keep: boolean,
): Promise<Outcome> {
  if (await exists(target)) return 'taken';
  const current = await lstat(file).catch(() => undefined);
  if (!current || !sameFile(current, identity)) return 'gone';
  if (keep) await copyFile(file, target);
  else await rename(file, target);
  return 'moved';
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * The one warning line, e.g. `placements.json was corrupt (not JSON: ...); moved to
 * placements.json.bad-1700...`, ending `; recovered from placements.json.prev` when a backup replaced it.
 */
export function quarantineWarning(
  file: string,
  reason: string,
  movedTo: string,
  recoveredFrom?: string,
): string {
  const recovered = recoveredFrom === undefined ? '' : `; recovered from ${basename(recoveredFrom)}`;
  return `dogsled: warning: ${basename(file)} was corrupt (${squeezedLine(reason)}); moved to ${basename(movedTo)}${recovered}`;
}
