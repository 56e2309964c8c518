#!/usr/bin/env node
// The dogsled entry point and the one place that turns a command's outcome into the process's exit
// status. Hot commands run from a bundle of their own (cli/hot/, dist/hot/NAME.mjs), other fast
// commands from the split chunks without commander, everything else through the full command line.
// Every command runs through runCommand (command.ts), and every error is printed by report.ts.
// This module loads nothing else up front: a hot command's start-up is its own bundle and no more.

import { mark } from '../service/timing.js';
import { HOT_COMMANDS, parseFast, runFast } from './fast-path.js';
import type { HotRun } from './hot/entry.js';

async function main(args: string[]): Promise<number> {
  mark('main');
  const fast = parseFast(args);
  if (fast && HOT_COMMANDS.has(fast.name)) {
    // Beside this file in dist/; it reports its own errors (entry.ts).
    const hot: { run: HotRun } = await import(new URL(`./hot/${fast.name}.mjs`, import.meta.url).href);
    return hot.run(fast.flags);
  }
  const [{ runCommand }, { contextFromProcess }] = await Promise.all([
    import('./command.js'),
    import('./context.js'),
  ]);
  if (fast) return runCommand(fast.name, () => runFast(fast, contextFromProcess));
  const { runProgram } = await import('./program.js');
  return runProgram(args);
}

try {
  process.exitCode = await main(process.argv.slice(2));
  mark('done');
} catch (error) {
  const { reportError } = await import('./report.js');
  process.exitCode = reportError(error, (text) => process.stderr.write(text));
}
