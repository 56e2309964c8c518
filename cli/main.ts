#!/usr/bin/env node
// The dogsled entry point and the one place that turns a command's outcome into the process's exit
// status. Hot commands run from a bundle of their own (cli/hot/, dist/hot/NAME.cjs, compiled with
// V8's code cache by hot-loader.ts); every other command from full.ts (dist/full.mjs and its split
// chunks). Every command runs through runCommand (command.ts), and every error is printed by report.ts.
// This module is built as one file that imports no other (scripts/build.mjs): a hot command's
// start-up is this file, its bundle and no more.

import { mark } from '../service/timing.js';
import { HOT_COMMANDS, parseFast } from './fast-path.js';
import { loadHot } from './hot-loader.js';

// Beside this file in dist/. A URL, not a literal specifier, so the build leaves them out of it.
const DIST = new URL('./', import.meta.url);
const loadFull = (): Promise<typeof import('./full.js')> => import(new URL('full.mjs', DIST).href);

async function main(args: string[]): Promise<number> {
  mark('main');
  const fast = parseFast(args);
  if (fast && HOT_COMMANDS.has(fast.name)) {
    // It reports its own errors (hot/entry.ts).
    const hot = loadHot(DIST, fast.name);
    const code = await hot.run(fast.flags);
    await hot.remember(code);
    return code;
  }
  return (await loadFull()).runFull(args, fast);
}

try {
  process.exitCode = await main(process.argv.slice(2));
  mark('done');
} catch (error) {
  process.exitCode = await (await loadFull()).reportFailure(error);
}
