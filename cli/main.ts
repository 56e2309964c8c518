#!/usr/bin/env node
// The dogsled entry point and the one place that turns a command's outcome into the process's exit
// status. It loads the dispatcher (cli/hot/dispatch.ts, dist/hot/dispatch.cjs) with V8's code cache
// and hands it argv: hot commands run from a bundle of their own (cli/hot/, dist/hot/NAME.cjs,
// compiled with the code cache by hot-loader.ts); every other command from full.ts (dist/full.mjs
// and its split chunks). Every command runs through runCommand (command.ts), and every error is
// printed by report.ts. This module is built as one CommonJS file that imports no other
// (dist/dogsled.cjs, scripts/build.mjs) but by a path it makes (the dispatcher, hot/quick.cjs for
// --version and --help, full.mjs), and it is kept small: Node compiles it from source on every run
// (it has no code cache of its own), while the dispatcher and what it runs come from a cache.
// CommonJS, because an ES module entry costs Node's module loader and a facade of every built-in it
// imports (node:fs's loads the streams) before the first line runs.

import { pathToFileURL } from 'node:url';
import { mark } from '../service/actions/timing-marks.js';
import { enableCompileCache } from './compile-cache.js';
import type { Dispatch, EntryHost } from './hot/dispatch.js';
import { loadHot } from './hot-loader.js';

// Beside this file in dist/, reached through a URL, not a literal specifier, so the build leaves
// them out of it. A path until then: a hot command never parses a URL.
const DIST = __dirname;
const loadFull = (): Promise<typeof import('./full.js')> => {
  enableCompileCache(process.env, () =>
    (process.getBuiltinModule('node:os') as typeof import('node:os')).homedir(),
  );
  return import(pathToFileURL(`${DIST}/full.mjs`).href);
};

/**
 * The words whose dispatcher keeps a code cache of its own: a cache holds the functions its run
 * compiled (each command's flags are parsed by its own), so each path reads one made by its kind.
 * Any other word shares `dispatch`. They are file names: plain lowercase words only.
 */
const OWN_CACHE = /^(?:status|hook|place|send|run|exec|items|ps|board|host|sidebar|dash|mcp|doctor|prune)$/;

/** `--version`, `-V`, `--help` or `-h` alone: hot/quick.ts's to answer, when it can. */
const QUICK = /^-(?:-version|V|-help|h)$/;

async function main(args: string[]): Promise<number> {
  mark('main');
  if (args.length === 1 && QUICK.test(args[0] ?? '')) {
    const quick: typeof import('./hot/quick.js') = require(`${DIST}/hot/quick.cjs`);
    if (quick.quickAnswer(args, `${DIST}/`)) return 0;
  }
  const word = args[0] ?? '';
  const dispatcher = loadHot<Dispatch>(
    DIST,
    'dispatch',
    process.env,
    OWN_CACHE.test(word) ? `dispatch-${word}` : 'dispatch',
  );
  const entry: EntryHost = { dist: DIST, loadHot, loadFull, started: () => void dispatcher.remember(0) };
  const code = await dispatcher.run(args, entry);
  await dispatcher.remember(code);
  return code;
}

/**
 * Node emits 'beforeExit' once its event loop has nothing left: no handle active (a write still
 * queued on a pipe keeps its handle active), no request, no timer. Without a listener that schedules
 * more, what follows is the exit itself and then Node's teardown (closing every handle, freeing the
 * V8 heap a page range at a time), which on the PVM guest was some 30 munmap calls and 90 system
 * calls in all, 10 to 40 ms of `run --wait`'s wall after its answer. process.exit() there skips only
 * that teardown: 'exit' listeners still run (a lock's release), and nothing is pending to lose.
 * Another 'beforeExit' listener (none of ours; a library's) may schedule more: then Node decides.
 */
function exitOnceIdle(): void {
  if (process.listenerCount('beforeExit') === 1) process.exit();
}

process.on('beforeExit', exitOnceIdle);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    mark('done');
  },
  async (error: unknown) => {
    process.exitCode = await (await loadFull()).reportFailure(error);
  },
);
