// host.json as the service's own lanes read it back (the todos worker, twice a tick; blocked
// reports, every finish pass). The service writes it once a tick, so most of these reads find the
// very file the last one parsed: a host.json whose inode, size, mtime and ctime are unchanged is
// handed out again (frozen, since every reader shares it) instead of being read, parsed and checked
// again, which with fifty agent panes is some 50 KB, a millisecond of CPU and half a megabyte of
// garbage each time. The publisher hands over the text it has just written (`rememberWritten`), so
// even the first read after a tick parses that text once, lazily, with no file read and no schema
// check (it was checked on its way out, and the schema has no defaults or transforms, so the check
// of the parsed text would give it back unchanged). Anything else (changed, missing, unreadable,
// broken) goes to readState as before.

import { type Stats, statSync } from 'node:fs';
import type { HostSnapshot } from '../../core/placement/host-types.js';
import { readState } from '../../state/engine/store.js';
import type { StateIO } from '../../state/io.js';
import { HostSnapshotSchema } from '../../state/schemas/host-schemas.js';

/** Per path: the identity of the file it was read from and the snapshot, or the text still to parse. */
const held = new Map<string, { identity: string; snapshot?: HostSnapshot; text?: string }>();

/**
 * `text` has just been written to `path` by the only writer of host.json, the service holding the
 * service lock: the file's identity now is that text's. A file whose identity cannot be read is
 * left to the next reread.
 */
export function rememberWritten(path: string, text: string): void {
  const identity = identityOf(path);
  if (identity === undefined) held.delete(path);
  else held.set(path, { identity, text });
}

export async function rereadHostSnapshot(io: StateIO): Promise<HostSnapshot | undefined> {
  const path = io.paths.host;
  const before = identityOf(path);
  const kept = held.get(path);
  if (before !== undefined && kept?.identity === before) {
    if (kept.snapshot === undefined && kept.text !== undefined) {
      kept.snapshot = deepFreeze(JSON.parse(kept.text) as HostSnapshot);
      kept.text = undefined;
    }
    if (kept.snapshot !== undefined) return kept.snapshot;
  }
  held.delete(path);
  const snapshot = await readState(path, HostSnapshotSchema, io);
  // Kept only when the file did not change while it was read.
  if (snapshot !== undefined && before !== undefined && identityOf(path) === before) {
    held.set(path, { identity: before, snapshot: deepFreeze(snapshot) });
  }
  return snapshot;
}

/** A synchronous stat: the point is to cost less than the read it saves. */
function identityOf(path: string): string | undefined {
  let stats: Stats | undefined;
  try {
    stats = statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (!stats?.isFile()) return undefined;
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const entry of Object.values(value)) deepFreeze(entry);
  }
  return value;
}
