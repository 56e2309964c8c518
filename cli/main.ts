#!/usr/bin/env node
// The dogsled entry point and the one place that turns a command's outcome into the process's exit
// status. Hot commands run from a bundle of their own (cli/hot/, dist/hot/NAME.cjs, compiled with
// V8's code cache by hot-loader.ts), other fast commands from the split chunks without commander,
// everything else through the full command line.
// Every command runs through runCommand (command.ts), and every error is printed by report.ts.
// This module loads nothing else up front: a hot command's start-up is its own bundle and no more.

import { mark } from '../service/timing.js';
import { HOT_COMMANDS, parseFast, runFast } from './fast-path.js';
import { loadHot } from './hot-loader.js';

async function main(args: string[]): Promise<number> {
  mark('main');
  const fast = parseFast(args);
  if (fast && HOT_COMMANDS.has(fast.name)) {
    // Beside this file in dist/; it reports its own errors (entry.ts).
    const hot = loadHot(new URL('./hot/', import.meta.url), fast.name);
    const code = await hot.run(fast.flags);
    await hot.remember(code);
    return code;
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
