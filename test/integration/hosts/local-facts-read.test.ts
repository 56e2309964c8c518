// This host's facts (hosts/local-facts.ts) read host.json and placements.json with their hand checks
// first (state/checks) and the schemas only for a file a check refuses, so a running service's
// snapshot costs a warm `status` no zod. A file in doubt must fare exactly as it did when the schema
// read it (the same warning, the file moved aside, read as none), a file that is no regular file
// (a directory, a FIFO nobody writes) must be refused as before without hanging, and a good one,
// escapes in the strings the probe read and all, must read as the schema reads it.

import { execFileSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readLocalFacts } from '../../../service/hosts/local-facts.js';
import { readState } from '../../../service/state/engine/store.js';
import type { StateIO } from '../../../service/state/io.js';
import { statePaths } from '../../../service/state/paths.js';
import { HostSnapshotSchema, PlacementsSchema } from '../../../service/state/schemas/host-schemas.js';
import { snapshotFixture } from '../../helpers/snapshot.js';
import { tempDir } from '../../helpers/tree.js';

const NOW = 1_900_000_000_000;

function snapshot(extra: Record<string, unknown> = {}) {
  const base = snapshotFixture({ sample_ms: NOW, busy: 0.5 }) as unknown as Record<string, unknown>;
  const host = base.host as Record<string, unknown>;
  return {
    ...base,
    host: { ...host, hostname: 'vm\u001b]0;pwned\u0007\nnext' },
    errors: ['\u001b[31mprobe\u001b[0m failed', 'x'.repeat(100_000)],
    'note\u001b[2J': { deep: [1, { k: 'v' }] },
    ...extra,
  };
}

const placements = (extra: Record<string, unknown> = {}) => ({
  version: 1,
  reservations: [{ id: 'r_1', created_ms: NOW - 1, expires_ms: NOW + 60_000, owner: 'w1:p\u001b[2J1' }],
  ...extra,
});

type Content = string | 'directory' | 'fifo';

/** A state dir holding `content` as `name` (host.json or placements.json); its io records warnings. */
async function stateWith(name: 'host' | 'placements', content: Content) {
  const root = await tempDir();
  const paths = statePaths(root);
  await mkdir(paths.dir, { recursive: true });
  const file = paths[name];
  if (content === 'directory') await mkdir(file);
  else if (content === 'fifo') execFileSync('mkfifo', [file]);
  else await writeFile(file, content);
  const warnings: string[] = [];
  const io = { paths, now: () => NOW, warn: (line: string) => warnings.push(line) } as unknown as StateIO;
  return { io, file, warnings, root, dir: paths.dir };
}

/** readLocalFacts' read and the schema's own read of the same file, each in a state dir of its own. */
async function bothReads(name: 'host' | 'placements', content: Content) {
  const facts = await stateWith(name, content);
  const schema = await stateWith(name, content);
  const refused = (root: string) => (error: unknown) => ({
    refused: String(error).split(root).join('<root>'),
  });
  const viaFacts = await readLocalFacts(facts.io)
    .then((read) => (name === 'host' ? read.snapshot : read.reservations))
    .catch(refused(facts.root));
  const viaSchema = await (name === 'host'
    ? readState(schema.file, HostSnapshotSchema, schema.io).then((read) => read ?? null)
    : readState(schema.file, PlacementsSchema, schema.io).then((read) => read?.reservations ?? [])
  ).catch(refused(schema.root));
  const words = (w: string[], root: string) => w.map((line) => line.split(root).join('<root>'));
  const files = async (dir: string) => (await readdir(dir)).map((f) => f.replace(/\d{6,}/g, 'N')).sort();
  return {
    facts: { value: viaFacts, warnings: words(facts.warnings, facts.root), files: await files(facts.dir) },
    schema: {
      value: viaSchema,
      warnings: words(schema.warnings, schema.root),
      files: await files(schema.dir),
    },
  };
}

describe("this host's facts, hand checks first", () => {
  it.each([
    ['host', JSON.stringify(snapshot())],
    ['placements', JSON.stringify(placements())],
  ] as const)('reads a good %s file as the schema does, its strings kept as written', async (name, text) => {
    const { facts, schema } = await bothReads(name, text);
    expect(facts.warnings).toEqual([]);
    expect(JSON.stringify(facts.value)).toBe(JSON.stringify(schema.value));
    expect(facts.files).toEqual(schema.files);
  });

  it.each([
    ['host', 'another version', JSON.stringify(snapshot({ version: 2 }))],
    ['host', 'a sample time that is text', JSON.stringify(snapshot({ sample_ms: 'now' }))],
    ['host', 'a probe that is an array', JSON.stringify(snapshot({ probe: [] }))],
    ['host', 'text that is not JSON', '{"version":1,"host'],
    ['host', 'an empty file', ''],
    ['placements', 'a reservation without an id', JSON.stringify({ version: 1, reservations: [{ id: '' }] })],
    ['placements', 'text that is not JSON', '[[['],
  ] as const)('quarantines a %s file with %s exactly as the schema did', async (name, _, text) => {
    const { facts, schema } = await bothReads(name, text);
    expect(facts.value).toEqual(name === 'host' ? null : []);
    expect(facts.warnings).toEqual(schema.warnings);
    expect(facts.warnings).toHaveLength(1);
    expect(facts.files).toEqual(schema.files);
  });

  it.each([
    ['host', 'directory'],
    ['host', 'fifo'],
    ['placements', 'directory'],
    ['placements', 'fifo'],
  ] as const)(
    'refuses a %s file that is a %s as the schema did, without waiting on it',
    async (name, kind) => {
      const { facts, schema } = await bothReads(name, kind);
      expect(facts).toEqual(schema);
      expect(facts.value).toEqual({ refused: expect.stringContaining('not a regular file') });
    },
  );
});
