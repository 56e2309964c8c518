// The slow project (test/slow-files.ts) holds every file that starts a real `serve`: it has the
// timeouts such a file needs, and the sequencer starts it among the first.

import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/cli.js';
import { SLOW_FILES } from '../../slow-files.js';

/**
 * A test file starts a service: `serve` through the CLI helpers, a fixture's startServe, the agent
 * tests' one serve per file (sharedServe), or npm's bin.
 */
const STARTS_SERVE = [
  /\b(?:runCli|runCliIn|startCli|spawnCli)\(\s*\[\s*'serve'/,
  /\bstartServe\(/,
  /\bsharedServe\(/,
  /\bspawn\('dogsled', \['serve'/,
];

async function testFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await testFiles(path)));
    else if (entry.name.endsWith('.test.ts')) found.push(relative(ROOT, path));
  }
  return found;
}

function slow(file: string): boolean {
  return SLOW_FILES.some((pattern) =>
    pattern.endsWith('/**/*.test.ts')
      ? file.startsWith(pattern.slice(0, -'**/*.test.ts'.length))
      : pattern === file,
  );
}

describe('the slow project', () => {
  it('holds every test file that starts a serve', async () => {
    const starting: string[] = [];
    for (const file of await testFiles(join(ROOT, 'test'))) {
      const text = await readFile(join(ROOT, file), 'utf8');
      if (STARTS_SERVE.some((pattern) => pattern.test(text))) starting.push(file);
    }
    expect(starting.length).toBeGreaterThan(20);
    expect(starting.filter((file) => !slow(file))).toEqual([]);
  });

  it('names only files that exist', () => {
    const missing = SLOW_FILES.filter(
      (pattern) => !pattern.includes('*') && !existsSync(join(ROOT, pattern)),
    );
    expect(missing).toEqual([]);
  });
});
