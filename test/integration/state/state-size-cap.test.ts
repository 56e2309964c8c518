// A state file past the 64 MiB no record reaches (bounded-read.ts) is never read whole: the store
// judges it corrupt and recovers, the lean readers leave it to the store, every other reader refuses
// it in one line. Files are sparse (truncate), so a gigabyte costs the test nothing.

import { execFileSync } from 'node:child_process';
import { closeSync, openSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { DogsledError } from '../../../service/core/common/errors.js';
import {
  FileTooLarge,
  readFdBounded,
  readFileFdBounded,
  STATE_FILE_MAX_BYTES,
} from '../../../service/state/engine/bounded-read.js';
import { glanceText } from '../../../service/state/engine/glance-file.js';
import { readRegular } from '../../../service/state/engine/regular-file.js';
import { readState, updateState, writeState } from '../../../service/state/engine/store.js';
import { readTomlFile } from '../../../service/state/engine/toml-file.js';
import { updateNow } from '../../../service/state/engine/update-now.js';
import { statePaths } from '../../../service/state/paths.js';
import { readEnvFile } from '../../../service/state/records/env-files.js';
import { listLaunchRecords } from '../../../service/state/records/launch-files.js';
import { PlacementsSchema } from '../../../service/state/schemas/host-schemas.js';
import { tempDir } from '../../helpers/tree.js';

const NOW = 1_700_000_000_000;
const GIB = 1024 * 1024 * 1024;
const reservation = { id: 'r_aaaaaaaaaaaa', created_ms: NOW, expires_ms: NOW + 90_000, owner: null };

function recorder() {
  const warnings: string[] = [];
  return { warnings, ctx: { now: () => NOW, warn: (line: string) => warnings.push(line) } };
}

/** A sparse file of `size` bytes (zeros: no record, whatever the reader). */
function sparse(path: string, size: number): void {
  writeFileSync(path, '');
  truncateSync(path, size);
}

describe('readFdBounded', () => {
  test('reads a file of exactly the cap and refuses one byte more, naming both sizes', async () => {
    const dir = await tempDir();
    const file = join(dir, 'f');
    writeFileSync(file, 'x'.repeat(10));
    const fd = openSync(file, 'r');
    try {
      expect(readFdBounded(fd, 10)).toBe('x'.repeat(10));
      expect(() => readFdBounded(fd, 9)).toThrow(FileTooLarge);
    } finally {
      closeSync(fd);
    }
    sparse(file, STATE_FILE_MAX_BYTES + 1);
    const big = openSync(file, 'r');
    try {
      expect(() => readFdBounded(big)).toThrow(/^larger than 64 MiB \(64\.0 MiB or more\)$/);
    } finally {
      closeSync(big);
    }
  });

  test('keeps multi-byte text whole', async () => {
    const file = join(await tempDir(), 'f');
    const text = `${'é'.repeat(5000)}🙂\n`;
    writeFileSync(file, text);
    const fd = openSync(file, 'r');
    try {
      expect(readFdBounded(fd)).toBe(text);
    } finally {
      closeSync(fd);
    }
  });
});

describe('readFileFdBounded (a glance: the size its caller took from the open handle)', () => {
  test('reads an empty file, a file of the size given, and one that grew or shrank since the stat', async () => {
    const file = join(await tempDir(), 'f');
    const read = (text: string, size: number, max?: number) => {
      writeFileSync(file, text);
      const fd = openSync(file, 'r');
      try {
        return readFileFdBounded(fd, size, max);
      } finally {
        closeSync(fd);
      }
    };
    expect(read('', 0)).toBe('');
    expect(read('{"version":1}', 13)).toBe('{"version":1}');
    // Grown since the stat: the rest is read, as readFdBounded reads it.
    expect(read('x'.repeat(5000), 10)).toBe('x'.repeat(5000));
    // Shrunk since the stat: what is there.
    expect(read('short', 4096)).toBe('short');
    // Grown past the cap since the stat: refused all the same.
    expect(() => read('x'.repeat(20), 5, 10)).toThrow(FileTooLarge);
    expect(() => read('x'.repeat(20), 20, 10)).toThrow(FileTooLarge);
  });
});

describe('the store and a state file past the cap', () => {
  test('a gigabyte placements.json is recovered from its backup with one warning, and kept aside', async () => {
    const file = statePaths(await tempDir()).placements;
    await writeState(file, PlacementsSchema, { version: 1, reservations: [reservation] });
    sparse(file, GIB);
    const { ctx, warnings } = recorder();
    expect(await readState(file, PlacementsSchema, ctx)).toEqual({ version: 1, reservations: [reservation] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^dogsled: warning: placements\.json was corrupt \(larger than 64 MiB \(1024 MiB or more\)\); .*placements\.json\.prev/,
    );
    // Nothing is lost: the oversized file is kept aside whole for a human to look at.
    expect((await stat(`${file}.bad-${NOW}`)).size).toBe(GIB);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, reservations: [reservation] });
  });

  test('a file without a backup reads as missing once moved aside; the next write starts fresh', async () => {
    const file = join(await tempDir(), 'counter.json');
    const schema = z.object({ n: z.number() });
    sparse(file, STATE_FILE_MAX_BYTES + 4096);
    const { ctx, warnings } = recorder();
    const seen = await updateState(file, schema, ctx, (value) => ({ result: value, next: { n: 1 } }));
    expect(seen).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/counter\.json was corrupt \(larger than 64 MiB/);
    expect((await readdir(join(file, '..'))).sort()).toEqual(['counter.json', `counter.json.bad-${NOW}`]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ n: 1 });
  });

  test('an oversized backup is no backup: the file reads as missing with the plain warning', async () => {
    const file = statePaths(await tempDir()).placements;
    await writeFile(file, '[oops');
    sparse(`${file}.prev`, GIB);
    const { ctx, warnings } = recorder();
    expect(await readState(file, PlacementsSchema, ctx)).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /placements\.json was corrupt \(not JSON: .*\); moved to placements\.json\.bad-/,
    );
  });
});

describe('the other readers', () => {
  test('readRegular refuses in one line naming the file', async () => {
    const file = join(await tempDir(), 'history.jsonl');
    sparse(file, GIB);
    const error = await readRegular(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DogsledError);
    expect((error as Error).message).toMatch(
      /^cannot read \S+history\.jsonl: larger than 64 MiB \(1024 MiB or more\)$/,
    );
  });

  test('a lean glance is in doubt, and a quick update declines and leaves the file as it was', async () => {
    const file = join(await tempDir(), 'sweep-request.json');
    sparse(file, GIB);
    expect(glanceText(file)).toBeUndefined();
    const check = { safeParse: (value: unknown) => ({ success: true as const, data: value }) };
    const options = { mode: 0o600, durable: true };
    expect(updateNow(file, check, options, () => ({ result: 'wrote', next: { n: 1 } }))).toBeUndefined();
    expect((await stat(file)).size).toBe(GIB);
    expect(await readdir(join(file, '..'))).toEqual(['sweep-request.json']);
  });

  test('a config past the cap is refused through its reader`s one-line failure', async () => {
    const file = join(await tempDir(), 'config.toml');
    sparse(file, GIB);
    const fail = (problem: string) => new DogsledError(`config ${file}: ${problem}`);
    await expect(readTomlFile(file, fail)).rejects.toThrow(/config \S+config\.toml: larger than 64 MiB/);
  });

  test('a launch record past the cap is a listing problem naming it, and a FIFO in its place one too', async () => {
    const paths = statePaths(await tempDir());
    await mkdir(paths.launches, { recursive: true });
    sparse(join(paths.launches, 'l_big.json'), GIB);
    execFileSync('mkfifo', [join(paths.launches, 'l_fifo.json')]);
    const listing = await listLaunchRecords(paths);
    expect(listing.records).toEqual([]);
    expect(listing.problems.map((problem) => problem.reason)).toEqual([
      'larger than 64 MiB (1024 MiB or more)',
      'not a regular file',
    ]);
  });

  test('a job env file past the cap is refused in one line naming it', async () => {
    const file = join(await tempDir(), 'j_big.env.json');
    sparse(file, GIB);
    await expect(readEnvFile(file)).rejects.toThrow(/^cannot read \S+j_big\.env\.json: larger than 64 MiB/);
  });
});
