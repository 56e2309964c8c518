#!/usr/bin/env node
// The dogsled entry point and the one place that turns a command's outcome into the process's exit
// status. Hot commands take the fast path; everything else loads the full command line. Either way
// the command runs through runCommand (command.ts), and every error is printed by report.ts.

import { mark } from '../service/timing.js';
import { runCommand } from './command.js';
import { contextFromProcess } from './context.js';
import { parseFast, runFast } from './fast-path.js';
import { reportError } from './report.js';

async function main(args: string[]): Promise<number> {
  mark('main');
  const fast = parseFast(args);
  if (fast) return runCommand(fast.name, () => runFast(fast, contextFromProcess));
  const { runProgram } = await import('./program.js');
  return runProgram(args);
}

try {
  process.exitCode = await main(process.argv.slice(2));
  mark('done');
} catch (error) {
  process.exitCode = reportError(error, (text) => process.stderr.write(text));
}
