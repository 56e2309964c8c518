// The peer cache reads an entry with its hand check first (state/checks/peer-entry-check.ts) and
// the schema only for an entry the check refuses: an entry in doubt must fare exactly as it did
// when the schema read every entry (the same warning, the file moved aside, read as none), and a
// good one, escapes from the peer and all, must read as the schema reads it.

import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPeerEntry } from '../../../service/hosts/peer-cache.js';
import { readState } from '../../../service/state/engine/store.js';
import type { StateIO } from '../../../service/state/io.js';
import { statePaths } from '../../../service/state/paths.js';
import { PeerEntrySchema } from '../../../service/state/schemas/peer-schemas.js';
import { snapshotFixture } from '../../helpers/snapshot.js';
import { tempDir } from '../../helpers/tree.js';

const NOW = 1_900_000_000_000;

function entry(extra: Record<string, unknown> = {}) {
  const snapshot = snapshotFixture({ sample_ms: NOW, busy: 0.5 }) as unknown as Record<string, unknown>;
  return {
    version: 1,
    id: 'f1',
    target: 'f1',
    attempt_ms: NOW,
    read_ms: NOW,
    unreachable: null,
    failures: 0,
    retry_at_ms: null,
    reply: {
      now_ms: NOW,
      host: {
        hostname: 'vm\u001b]0;pwned\u0007\nnext',
        service: 'up',
        sample_ms: NOW,
        interval_ms: 5000,
        probe: snapshot.probe,
        headroom: { ...(snapshot.headroom as object), reason: ['\u001b[31mbusy\u001b[0m'] },
        reservations: [],
        errors: [],
        facts: null,
      },
      'note\u001b[2J': 'x'.repeat(100_000),
    },
    ...extra,
  };
}

/** A state dir holding `text` as peers/f1.json; its io records warnings. */
async function cacheWith(text: string | 'directory') {
  const root = await tempDir();
  const paths = statePaths(root);
  await mkdir(paths.peers, { recursive: true });
  const file = join(paths.peers, 'f1.json');
  if (text === 'directory') await mkdir(file);
  else await writeFile(file, text);
  const warnings: string[] = [];
  const io = { paths, now: () => NOW, warn: (line: string) => warnings.push(line) } as unknown as StateIO;
  return { io, file, warnings, peers: paths.peers, root };
}

/** The cache's read and the schema's own read of the same text, each in a state dir of its own. */
async function bothReads(text: string | 'directory') {
  const cache = await cacheWith(text);
  const schema = await cacheWith(text);
  // A file that is no regular file is refused before any check: said the same way by both.
  const refused = (root: string) => (error: unknown) => ({
    refused: String(error).split(root).join('<root>'),
  });
  const viaCache = await readPeerEntry(cache.io, 'f1').catch(refused(cache.root));
  const viaSchema = await readState(schema.file, PeerEntrySchema, schema.io).catch(refused(schema.root));
  const words = (w: string[], root: string) => w.map((line) => line.split(root).join('<root>'));
  return {
    cache: {
      value: viaCache,
      warnings: words(cache.warnings, cache.root),
      files: (await readdir(cache.peers)).map((f) => f.replace(/\d{6,}/g, 'N')).sort(),
    },
    schema: {
      value: viaSchema,
      warnings: words(schema.warnings, schema.root),
      files: (await readdir(schema.peers)).map((f) => f.replace(/\d{6,}/g, 'N')).sort(),
    },
  };
}

describe("the peer cache's entry read, hand check first", () => {
  it('reads a good entry as the schema does, every string from the peer a plain line', async () => {
    const { cache, schema } = await bothReads(JSON.stringify(entry()));
    expect(cache.warnings).toEqual([]);
    expect(JSON.stringify(cache.value)).toBe(JSON.stringify(schema.value));
    const text = JSON.stringify(cache.value);
    expect(text).not.toMatch(/\\u001b|\\u0007|\\n/);
  });

  it.each([
    ['a negative failure count', JSON.stringify(entry({ failures: -1 }))],
    ['an unknown category', JSON.stringify(entry({ unreachable: 'sunspots' }))],
    ['a reply that is not dogsled', JSON.stringify(entry({ reply: { now_ms: 'soon' } }))],
    ['another version', JSON.stringify(entry({ version: 2 }))],
    ['text that is not JSON', '{"version":1,"id":"f1'],
  ])('quarantines %s exactly as the schema did', async (_, text) => {
    const { cache, schema } = await bothReads(text);
    expect(cache.value).toBeUndefined();
    expect(cache.warnings).toEqual(schema.warnings);
    expect(cache.files).toEqual(schema.files);
  });

  it('refuses an entry that is a directory as the schema did', async () => {
    const { cache, schema } = await bothReads('directory');
    expect(cache.value).toEqual({ refused: expect.stringContaining('not a regular file') });
    expect(cache).toEqual(schema);
  });
});
