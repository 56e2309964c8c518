// Edits of dogsled's own peer list, the `[[hosts]]` tables of config.toml, for `dogsled machine` when
// Herdr has no saved machines. The file is the user's: edits touch only the lines they change
// (a new table appended, one key line replaced or inserted), so comments and layout stay. Each edit
// is checked by loading the result as the config loader would; anything else is refused before a
// byte is written, and the write is atomic under the file's lock.

import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DogsledError } from '../../core/common/errors.js';
import { writeAtomic } from '../engine/atomic-write.js';
import { withLock } from '../engine/lock.js';
import { readRegular } from '../engine/regular-file.js';
import { type ConfigHost, loadConfig } from './config.js';

/** A TOML basic string: JSON's escapes (`\"`, `\\`, `\n`, `\u001b`) are TOML's too. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

const TABLE = /^\s*\[/;
const HOSTS_TABLE = /^\s*\[\[\s*hosts\s*\]\]\s*(#.*)?$/;

export interface ConfigFile {
  path: string;
  home: string;
}

/** Appends a `[[hosts]]` table; the id and label must be new (the loader checks that too). */
export async function addConfigHost(file: ConfigFile, host: ConfigHost): Promise<ConfigHost> {
  return edit(
    file,
    (text) => {
      const lines = [
        '[[hosts]]',
        `id = ${tomlString(host.id)}`,
        `label = ${tomlString(host.label)}`,
        `target = ${tomlString(host.target)}`,
        ...(host.enabled ? [] : ['enabled = false']),
      ];
      const sep = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
      return `${text}${sep}${lines.join('\n')}\n`;
    },
    (hosts) => hosts.find((h) => h.id === host.id),
  );
}

/** Sets `key` of the `[[hosts]]` table whose id is `id` (replacing its line, or adding one). */
export async function setConfigHostKey(
  file: ConfigFile,
  id: string,
  key: 'label' | 'enabled',
  value: string | boolean,
): Promise<ConfigHost> {
  const line = `${key} = ${typeof value === 'string' ? tomlString(value) : String(value)}`;
  return edit(
    file,
    (text) => {
      const lines = text.split('\n');
      const block = hostBlock(lines, id, file.path);
      const keyLine = new RegExp(`^\\s*${key}\\s*=`);
      const at = lines.slice(block.start, block.end).findIndex((l) => keyLine.test(l));
      if (at >= 0) lines[block.start + at] = line;
      else lines.splice(block.idLine + 1, 0, line);
      return lines.join('\n');
    },
    (hosts) => hosts.find((h) => h.id === id && h[key] === value),
  );
}

/** The lines of the `[[hosts]]` table with `id = "<id>"`: [start, end) and the id's line. */
function hostBlock(
  lines: string[],
  id: string,
  path: string,
): { start: number; end: number; idLine: number } {
  const idPattern = /^\s*id\s*=\s*(.*)$/;
  for (let start = 0; start < lines.length; start++) {
    if (!HOSTS_TABLE.test(lines[start] ?? '')) continue;
    let end = start + 1;
    while (end < lines.length && !TABLE.test(lines[end] ?? '')) end++;
    for (let i = start + 1; i < end; i++) {
      const match = idPattern.exec(lines[i] ?? '');
      if (match && idValue(match[1] ?? '') === id) return { start, end, idLine: i };
    }
    start = end - 1;
  }
  throw new DogsledError(`config ${path}: no [[hosts]] table with id "${id}"`);
}

/** The string an `id = …` line holds (basic or literal string, a trailing comment allowed). */
function idValue(raw: string): string | undefined {
  const text = raw.replace(/\s+#.*$/, '').trim();
  if (text.startsWith("'") && text.endsWith("'") && text.length >= 2) return text.slice(1, -1);
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

async function edit(
  file: ConfigFile,
  change: (text: string) => string,
  check: (hosts: ConfigHost[]) => ConfigHost | undefined,
): Promise<ConfigHost> {
  await mkdir(dirname(file.path), { recursive: true });
  return withLock(file.path, async (held) => {
    const before = (await readRegular(file.path)) ?? '';
    // The file as it stands must load: an edit never hides a problem that was there already.
    await loadConfig(file.path, false, file.home);
    const after = change(before);
    const scratch = `${file.path}.check-${process.pid}`;
    const mode = ((await stat(file.path).catch(() => undefined))?.mode ?? 0o600) & 0o777;
    await writeAtomic(scratch, after, { mode });
    let host: ConfigHost | undefined;
    try {
      host = check((await loadConfig(scratch, true, file.home)).hosts);
    } catch (error) {
      throw new DogsledError(`config ${file.path}: the edit would not load (${(error as Error).message})`);
    } finally {
      await rm(scratch, { force: true });
    }
    if (host === undefined) {
      throw new DogsledError(`config ${file.path}: cannot edit its [[hosts]] safely; edit the file by hand`);
    }
    await writeAtomic(file.path, after, { mode, guard: held.assertOwned });
    return host;
  });
}
