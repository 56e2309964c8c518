// Node's compile cache for the commands that run from dist/full.mjs (cli/compile-cache.ts): on a Node
// that has module.enableCompileCache (22.1 and later; .ci/node-majors runs this file on those), a full
// command leaves its entries in code-cache/node/ of the state dir, 0700, and answers the same from
// them; on Node 20 it writes nothing there. Never where there is no state dir, never where the user
// chose a cache of their own, never for a hot command; a state dir that is a file changes nothing.
// Old entries go when a hot cache is written (code-cache-write.ts's dropOldCompileEntries).

import {
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropOldCompileEntries } from '../../../service/state/code-cache/code-cache-write.js';
import { runCli, sandbox } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tree.js';

const nodeModule = createRequire(import.meta.url)('node:module') as { enableCompileCache?: unknown };
const HAS_COMPILE_CACHE = typeof nodeModule.enableCompileCache === 'function';

/** The entries Node wrote: one dir per Node release and user, a file per module in each. */
function entries(compile: string): string[] {
  if (!existsSync(compile)) return [];
  return readdirSync(compile).flatMap((release) =>
    readdirSync(join(compile, release)).map((entry) => join(release, entry)),
  );
}

describe('a full command and Node’s compile cache', () => {
  it(
    HAS_COMPILE_CACHE ? 'keeps its compiled chunks in the state dir' : 'writes no compile cache on this Node',
    async () => {
      const box = await sandbox();
      mkdirSync(box.state, { mode: 0o700 });
      const compile = join(box.state, 'code-cache', 'node');
      const first = await runCli(['agent', '--help'], box.env);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('--branch');
      if (!HAS_COMPILE_CACHE) {
        expect(existsSync(compile)).toBe(false);
        return;
      }
      const written = entries(compile);
      expect(written.length).toBeGreaterThan(5);
      expect(statSync(join(box.state, 'code-cache')).mode & 0o777).toBe(0o700);
      expect(statSync(compile).mode & 0o777).toBe(0o700);
      const again = await runCli(['agent', '--help'], box.env);
      expect(again).toEqual(first);
      expect(entries(compile)).toEqual(written);
    },
  );

  it('makes no state dir for its cache', async () => {
    const box = await sandbox();
    const result = await runCli(['agent', '--help'], box.env);
    expect(result.code).toBe(0);
    expect(existsSync(box.state)).toBe(false);
  });

  it('leaves a cache the user chose where it is, and makes none in the state dir', async () => {
    const box = await sandbox();
    mkdirSync(box.state, { mode: 0o700 });
    const own = join(box.root, 'own-cache');
    const result = await runCli(['agent', '--help'], { ...box.env, NODE_COMPILE_CACHE: own });
    expect(result.code).toBe(0);
    expect(existsSync(join(box.state, 'code-cache', 'node'))).toBe(false);
    if (HAS_COMPILE_CACHE) expect(entries(own).length).toBeGreaterThan(5);
    const off = await runCli(['agent', '--help'], { ...box.env, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off.code).toBe(0);
    expect(existsSync(join(box.state, 'code-cache', 'node'))).toBe(false);
  });

  it('is not turned on by a hot command', async () => {
    const box = await sandbox();
    mkdirSync(box.state, { mode: 0o700 });
    const result = await runCli(['status', '--line'], box.env);
    expect(result.stderr).toBe('');
    expect(existsSync(join(box.state, 'code-cache', 'node'))).toBe(false);
  });

  it('answers as before when the state dir is a file or its code-cache is one', async () => {
    const box = await sandbox();
    writeFileSync(box.state, 'not a dir');
    const base = await runCli(['agent', '--help'], box.env);
    expect(base.code).toBe(0);
    expect(base.stderr).toBe('');
    const other = await sandbox();
    mkdirSync(other.state, { mode: 0o700 });
    writeFileSync(join(other.state, 'code-cache'), 'not a dir');
    const result = await runCli(['agent', '--help'], other.env);
    expect(result).toEqual(base);
  });
});

describe('dropOldCompileEntries', () => {
  const DAY = 86_400_000;
  const now = Date.parse('2026-12-05T12:00:00Z');

  function entry(path: string, ageDays: number): void {
    writeFileSync(path, 'cached');
    const at = new Date(now - ageDays * DAY);
    utimesSync(path, at, at);
  }

  it('drops entries not written for a week and a release dir they leave empty, and keeps the rest', async () => {
    const state = await tempDir('dogsled-compile-drop-');
    const compile = join(state, 'code-cache', 'node');
    const kept = join(compile, 'v22.23.5-x64-9de703df-0');
    const gone = join(compile, 'v22.1.0-x64-12345678-0');
    mkdirSync(kept, { recursive: true });
    mkdirSync(gone);
    // Made by Node for a run still going, which writes its entries at its exit.
    const fresh = join(compile, 'v24.22.3-x64-87654321-0');
    mkdirSync(fresh);
    entry(join(kept, 'aaaa1111'), 1);
    entry(join(kept, 'bbbb2222'), 8);
    entry(join(gone, 'cccc3333'), 30);
    // Not Node's: a link and a dir in a release dir, a file beside the release dirs.
    mkdirSync(join(kept, 'nested'));
    symlinkSync(join(state, 'elsewhere'), join(kept, 'link'));
    entry(join(compile, 'stray'), 30);

    await dropOldCompileEntries(state, now);

    expect(readdirSync(kept).sort()).toEqual(['aaaa1111', 'link', 'nested']);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(join(compile, 'stray'))).toBe(true);
  });

  it('does nothing where there is no compile cache, or where it is a file', async () => {
    const state = await tempDir('dogsled-compile-drop-');
    await expect(dropOldCompileEntries(state, now)).resolves.toBeUndefined();
    mkdirSync(join(state, 'code-cache'));
    writeFileSync(join(state, 'code-cache', 'node'), 'not a dir');
    await expect(dropOldCompileEntries(state, now)).resolves.toBeUndefined();
    expect(statSync(join(state, 'code-cache', 'node')).isFile()).toBe(true);
  });
});
