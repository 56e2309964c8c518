#!/usr/bin/env node
// The dogsled entry point and the one place that turns errors into exit codes. Hot commands take
// the fast path; everything else loads the full command line.

import { DogsledError } from '../service/errors.js';
import { isSystemError, systemErrorText } from '../service/state/fs-errors.js';
import { oneLine } from '../service/state/quarantine.js';
import { mark } from '../service/timing.js';
import { contextFromProcess } from './context.js';
import { parseFast, runFast } from './fast-path.js';

function report(error: unknown): number {
  if (error instanceof DogsledError) {
    process.stderr.write(`dogsled: ${error.message}\n`);
    if (error.hint) process.stderr.write(`  ${error.hint}\n`);
    return error.exitCode;
  }
  // The system refused a file (a full disk, a read-only filesystem, permissions): the user's
  // environment, not a bug, so one line and exit 2 rather than an internal error.
  if (isSystemError(error)) {
    const path = typeof error.path === 'string' ? ` ${oneLine(error.path, 400)}` : '';
    process.stderr.write(`dogsled: ${error.syscall}${path}: ${systemErrorText(error)}\n`);
    return 2;
  }
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`dogsled: internal error: ${text}\n`);
  return 70;
}

async function main(argv: string[]): Promise<number | undefined> {
  mark('main');
  const fast = parseFast(argv.slice(2));
  if (fast) return runFast(fast, contextFromProcess);
  const program = await import('./program.js');
  try {
    await program.runProgram(argv);
    return undefined;
  } catch (error) {
    const code = program.commanderExit(error);
    if (code === undefined) throw error;
    return code;
  }
}

try {
  const code = await main(process.argv);
  if (code !== undefined) process.exitCode = code;
  mark('done');
} catch (error) {
  process.exitCode = report(error);
}
