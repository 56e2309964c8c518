// What importing a hot bundle (dist/hot/NAME.mjs, built by the suite's global set-up) costs,
// counted rather than timed: no zod schema is built at import (zod's own post-processor hook sees
// every construction), and none of the builtins that only some paths need (node:crypto,
// node:child_process, node:net, node:perf_hooks) is loaded. Hooks run on every prompt and stop;
// the time these took at import was most of what they cost beyond `node -e 0`. The hook bundle
// leaves the terminal layer (a third of its size, needed until a pane's terminal is remembered) to
// dist/hot/hook-whereabouts.mjs; `place` leaves its --branch worktree layer and Herdr's machine verbs
// (the terminal layer, two fifths of it) to dist/hot/place-branch.mjs and herdr-machines.mjs, and an
// error thrown there is still a DogsledError (one line, exit 2) when the hot bundle reports it; a
// job's supervisor (exec) leaves the terminal it reports a pane through to dist/hot/exec-terminal.mjs.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, sandbox } from '../helpers/cli.js';

const PROBE = `
let built = 0;
globalThis.__zod_globalConfig = { postProcessor: () => { built += 1; } };
const before = new Set(process.moduleLoadList);
await import(process.argv[1]);
const loaded = process.moduleLoadList.filter((m) => !before.has(m)).map((m) => m.replace(/^NativeModule /, ''));
process.stdout.write(JSON.stringify({ built, loaded }));
`;

/** Imports the bundle in a fresh node (nothing runs but its top level) and reports what that did. */
function importCost(bundle: string): { built: number; loaded: string[] } {
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', PROBE, pathToFileURL(bundle).href],
    {
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`importing ${bundle} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const ON_USE_ONLY = ['crypto', 'child_process', 'net', 'perf_hooks'];

describe('hot bundles at import', () => {
  // exec is the job's supervisor: it always starts a child.
  const needs: Record<string, string[]> = { exec: ['child_process', 'net'] };
  for (const name of ['hook', 'place', 'status', 'run', 'exec']) {
    it(`${name}: builds no zod schema and loads no builtin it may not need`, () => {
      const cost = importCost(join(ROOT, 'dist', 'hot', `${name}.mjs`));
      expect(cost.built).toBe(0);
      const mayLoad = ON_USE_ONLY.filter((m) => !needs[name]?.includes(m));
      expect(cost.loaded.filter((m) => mayLoad.includes(m))).toEqual([]);
    });
  }

  it('hook: the terminal lookup is a file of its own, loaded only when needed', () => {
    const hot = (name: string) => readFileSync(join(ROOT, 'dist', 'hot', `${name}.mjs`), 'utf8');
    expect(hot('hook')).not.toContain('function openTerminal(');
    expect(hot('hook')).toContain('./hook-whereabouts.mjs');
    expect(hot('hook-whereabouts')).toContain('function openTerminal(');
  });

  it('place: the terminal layer is in files of their own, loaded only by --branch or a herdr binary', () => {
    const hot = (name: string) => readFileSync(join(ROOT, 'dist', 'hot', `${name}.mjs`), 'utf8');
    const place = hot('place');
    for (const fn of ['openTerminal', 'listMachines', 'ensureBranchWorktree']) {
      expect(place).not.toContain(`function ${fn}(`);
    }
    // Only as dynamic imports: a static one would load them on every placement.
    expect(place).toContain('import("./place-branch.mjs")');
    expect(place).toContain('import("./herdr-machines.mjs")');
    expect(place).not.toMatch(/from\s*"\.\/(place-branch|herdr-machines)\.mjs"/);
    expect(hot('place-branch')).toContain('function openTerminal(');
    expect(hot('herdr-machines')).toContain('function listMachines(');
  });

  it("exec: the terminal a job's supervisor reports its pane through is loaded only under a terminal", () => {
    // A headless job's supervisor, on `run --wait`'s critical path, never opens it.
    const hot = (name: string) => readFileSync(join(ROOT, 'dist', 'hot', `${name}.mjs`), 'utf8');
    expect(hot('exec')).not.toContain('function openTerminal(');
    expect(hot('exec')).toContain('import("./exec-terminal.mjs")');
    expect(hot('exec-terminal')).toContain('function openTerminal(');
  });

  it("place: an error thrown in a cold file is the hot bundle's DogsledError: one line, exit 2", async () => {
    const box = await sandbox();
    try {
      const notRepo = join(box.root, 'not-a-repo');
      await mkdir(notRepo);
      const result = await runCli(['place', '--branch', 'feat', '--repo', notRepo], box.env, {
        cwd: notRepo,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^dogsled: place: --branch needs a Git repository: [^\n]*\n$/);
      expect(result.stdout).toBe('');
    } finally {
      await box.cleanup();
    }
  });

  it('the entry loads three modules before a hot bundle: the fast path, the timing marks, the bundler runtime', () => {
    // Each ESM module costs its own read, parse and link on every command (a dependency of
    // service/timing.ts once added a fourth).
    const seen = new Set<string>();
    const visit = (file: string): void => {
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import)\s*"(\.\.?\/[^"]+\.mjs)"/g)) {
        const path = join(dirname(file), spec as string);
        if (!seen.has(path)) {
          seen.add(path);
          visit(path);
        }
      }
    };
    visit(join(ROOT, 'dist', 'dogsled.mjs'));
    expect(seen.size).toBeLessThanOrEqual(3);
  });
});
