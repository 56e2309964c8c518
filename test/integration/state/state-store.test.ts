import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { readState, updateState, writeState } from '../../../service/state/engine/store.js';
import { ensureStateDir, statePaths } from '../../../service/state/paths.js';
import { PlacementsSchema } from '../../../service/state/schemas/host-schemas.js';
import { tempDir } from '../../helpers/tree.js';

const NOW = 1_700_000_000_000;

function recorder(now = NOW) {
  const warnings: string[] = [];
  return { warnings, ctx: { now: () => now, warn: (line: string) => warnings.push(line) } };
}

async function placementsFile(): Promise<string> {
  return statePaths(await tempDir()).placements;
}

const reservation = { id: 'r_aaaaaaaaaaaa', created_ms: NOW, expires_ms: NOW + 90_000, owner: null };

describe('writeState', () => {
  test('replaces the file with mode 0600 and leaves no temp files behind, only its backup', async () => {
    const file = await placementsFile();
    for (let i = 0; i < 5; i++) {
      await writeState(file, PlacementsSchema, { version: 1, reservations: i % 2 ? [reservation] : [] });
    }
    const dir = join(file, '..');
    expect((await readdir(dir)).sort()).toEqual(['placements.json', 'placements.json.prev']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(`${file}.prev`)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, reservations: [] });
    // The backup holds the same generation, so recovering from it loses nothing acknowledged.
    expect(await readFile(`${file}.prev`, 'utf8')).toBe(await readFile(file, 'utf8'));
  });

  test('refuses a value that fails its schema and leaves the file as it was', async () => {
    const file = await placementsFile();
    await writeState(file, PlacementsSchema, { version: 1, reservations: [] });
    const bad = { version: 2, reservations: [] } as unknown as z.input<typeof PlacementsSchema>;
    await expect(writeState(file, PlacementsSchema, bad)).rejects.toThrow(
      /placements.json: value fails its schema/,
    );
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, reservations: [] });
  });
});

describe('readState', () => {
  test('returns undefined for a missing file without warning', async () => {
    const { ctx, warnings } = recorder();
    expect(await readState(await placementsFile(), PlacementsSchema, ctx)).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  test('quarantines a file that is not JSON with exactly one warning and reads it as missing', async () => {
    const file = await placementsFile();
    await writeFile(file, '{"version": 1, "reserv');
    const { ctx, warnings } = recorder();
    expect(await readState(file, PlacementsSchema, ctx)).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^dogsled: warning: placements\.json was corrupt \(not JSON: [^\n]+\); moved to placements\.json\.bad-1700000000000$/,
    );
    expect(await readFile(`${file}.bad-${NOW}`, 'utf8')).toBe('{"version": 1, "reserv');
    expect(await readdir(join(file, '..'))).toEqual([`placements.json.bad-${NOW}`]);
  });

  test('quarantines a file that fails its schema and names the bad field', async () => {
    const file = await placementsFile();
    await writeFile(file, JSON.stringify({ version: 1, reservations: [{ ...reservation, id: 5 }] }));
    const { ctx, warnings } = recorder();
    expect(await readState(file, PlacementsSchema, ctx)).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^dogsled: warning: placements\.json was corrupt \(schema: reservations\.0\.id: /,
    );
    expect(warnings[0]).toMatch(/; moved to placements\.json\.bad-1700000000000$/);
  });

  test('a second corrupt file at the same millisecond does not overwrite the first quarantine', async () => {
    const file = await placementsFile();
    const { ctx, warnings } = recorder();
    await writeFile(file, 'first');
    await readState(file, PlacementsSchema, ctx);
    await writeFile(file, 'second');
    await readState(file, PlacementsSchema, ctx);
    expect(await readFile(`${file}.bad-${NOW}`, 'utf8')).toBe('first');
    expect(await readFile(`${file}.bad-${NOW}-1`, 'utf8')).toBe('second');
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/moved to placements\.json\.bad-1700000000000-1$/);
  });

  test('strips control characters that a parser quotes from the file into the warning', async () => {
    const file = await placementsFile();
    await writeFile(file, '\u001b]0;pwned\u0007\n{');
    const { ctx, warnings } = recorder();
    await readState(file, PlacementsSchema, ctx);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});

describe('updateState', () => {
  test('keeps fields written by a newer version through read-modify-write', async () => {
    const file = await placementsFile();
    const newer = {
      version: 1,
      generation: 7,
      reservations: [{ ...reservation, gpu: { count: 1 } }],
    };
    await writeFile(file, JSON.stringify(newer));
    const { ctx } = recorder();
    const added = { ...reservation, id: 'r_bbbbbbbbbbbb' };
    const result = await updateState(file, PlacementsSchema, ctx, (current) => ({
      result: current?.reservations.length,
      next: { ...current!, reservations: [...current!.reservations, added] },
    }));
    expect(result).toBe(1);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      version: 1,
      generation: 7,
      reservations: [{ ...reservation, gpu: { count: 1 } }, added],
    });
  });

  test('writes nothing when fn returns no next record', async () => {
    const file = await placementsFile();
    const { ctx } = recorder();
    const seen = await updateState(file, PlacementsSchema, ctx, (current) => ({ result: current }));
    expect(seen).toBeUndefined();
    expect(await readdir(join(file, '..'))).toEqual([]);
  });

  test('hands fn undefined after quarantining a corrupt file, then writes the fresh record', async () => {
    const file = await placementsFile();
    await writeFile(file, '[]');
    const { ctx, warnings } = recorder();
    const seen = await updateState(file, PlacementsSchema, ctx, (current) => ({
      result: current,
      next: { version: 1 as const, reservations: [] },
    }));
    expect(seen).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(await readState(file, PlacementsSchema, ctx)).toEqual({ version: 1, reservations: [] });
    expect((await readdir(join(file, '..'))).sort()).toEqual([
      'placements.json',
      `placements.json.bad-${NOW}`,
      'placements.json.prev',
    ]);
  });

  test('creates a missing state dir on first write', async () => {
    const file = join(await tempDir(), 'nested', 'state', 'counter.json');
    const schema = z.looseObject({ count: z.number() });
    await updateState(file, schema, recorder().ctx, () => ({ result: null, next: { count: 1 } }));
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 1 });
  });
});

describe('the last good generation (<name>.prev)', () => {
  const second = { ...reservation, id: 'r_bbbbbbbbbbbb' };

  async function twoGenerations(): Promise<string> {
    const file = await placementsFile();
    const { ctx } = recorder();
    for (const r of [reservation, second]) {
      await updateState(file, PlacementsSchema, ctx, (current) => ({
        result: null,
        next: { version: 1 as const, reservations: [...(current?.reservations ?? []), r] },
      }));
    }
    return file;
  }

  test('a damaged file is recovered whole, with one warning naming both files', async () => {
    const file = await twoGenerations();
    await writeFile(file, '{"version": 1, "reserv');
    const { ctx, warnings } = recorder();
    // Every acknowledged change is back, the last one included.
    expect(await readState(file, PlacementsSchema, ctx)).toEqual({
      version: 1,
      reservations: [reservation, second],
    });
    expect(warnings).toEqual([
      expect.stringMatching(
        /^dogsled: warning: placements\.json was corrupt \(not JSON: [^\n]+\); moved to placements\.json\.bad-1700000000000; recovered from placements\.json\.prev$/,
      ),
    ]);
    // The file itself was repaired, so the next reader warns no more; the damage is kept aside.
    expect(JSON.parse(await readFile(file, 'utf8')).reservations).toHaveLength(2);
    expect(await readFile(`${file}.bad-${NOW}`, 'utf8')).toBe('{"version": 1, "reserv');
    const again = recorder();
    expect((await readState(file, PlacementsSchema, again.ctx))?.reservations).toHaveLength(2);
    expect(again.warnings).toEqual([]);
  });

  test('updateState hands fn the recovered record, not nothing', async () => {
    const file = await twoGenerations();
    await writeFile(file, JSON.stringify({ version: 1, reservations: [{ id: 5 }] }));
    const { ctx, warnings } = recorder();
    const seen = await updateState(file, PlacementsSchema, ctx, (current) => ({
      result: current?.reservations.map((r) => r.id),
    }));
    expect(seen).toEqual([reservation.id, second.id]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/schema: reservations\.0\.id: .*; recovered from placements\.json\.prev$/);
  });

  test('with a damaged backup as well, the file reads as missing with the plain warning', async () => {
    const file = await twoGenerations();
    await writeFile(file, 'garbage');
    await writeFile(`${file}.prev`, 'garbage too');
    const { ctx, warnings } = recorder();
    expect(await readState(file, PlacementsSchema, ctx)).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/moved to placements\.json\.bad-1700000000000$/)]);
  });

  test('a backup that is a FIFO is no backup, and never blocks the reader', async () => {
    const file = await twoGenerations();
    await writeFile(file, 'garbage');
    await rm(`${file}.prev`);
    execFileSync('mkfifo', [`${file}.prev`]);
    const { ctx, warnings } = recorder();
    expect(await readState(file, PlacementsSchema, ctx)).toBeUndefined();
    expect(warnings).toHaveLength(1);
  });

  test('a removed file is not resurrected from its backup', async () => {
    const file = await twoGenerations();
    await rm(file);
    const { ctx, warnings } = recorder();
    expect(await readState(file, PlacementsSchema, ctx)).toBeUndefined();
    expect(warnings).toEqual([]);
  });
});

describe('ensureStateDir', () => {
  test('creates the dir with mode 0700 and tightens one that exists', async () => {
    const root = await tempDir();
    const fresh = join(root, 'a', 'dogsled');
    await ensureStateDir(fresh);
    expect((await stat(fresh)).mode & 0o777).toBe(0o700);
    const loose = join(root, 'loose');
    await mkdir(loose, { mode: 0o755 });
    await ensureStateDir(loose);
    expect((await stat(loose)).mode & 0o777).toBe(0o700);
  });
});
