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
import type { Dispatch, EntryHost } from './hot/dispatch.js';
import { loadHot } from './hot-loader.js';

// Beside this file in dist/, reached through a URL, not a literal specifier, so the build leaves
// them out of it. A path until then: a hot command never parses a URL.
const DIST = __dirname;
const loadFull = (): Promise<typeof import('./full.js')> => import(pathToFileURL(`${DIST}/full.mjs`).href);

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
  const entry: EntryHost = { dist: DIST, loadHot, loadFull };
  const code = await dispatcher.run(args, entry);
  await dispatcher.remember(code);
  return code;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    mark('done');
  },
  async (error: unknown) => {
    process.exitCode = await (await loadFull()).reportFailure(error);
  },
);
