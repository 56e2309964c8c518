#!/usr/bin/env node
// The dogsled entry point and the one place that turns a command's outcome into the process's exit
// status. Hot commands run from a bundle of their own (cli/hot/, dist/hot/NAME.cjs, compiled with
// V8's code cache by hot-loader.ts); every other command from full.ts (dist/full.mjs and its split
// chunks). Every command runs through runCommand (command.ts), and every error is printed by report.ts.
// This module is built as one CommonJS file that imports no other (dist/dogsled.cjs, scripts/build.mjs):
// a hot command's start-up is this file, its bundle and no more. CommonJS, because an ES module
// entry costs Node's module loader and a facade of every built-in it imports (node:fs's loads the
// streams) before the first line runs.

import { pathToFileURL } from 'node:url';
import { mark, STARTED_EVENT } from '../service/actions/timing-marks.js';
import { HOT_COMMANDS, hotBundle, leanBundle, parseFast } from './fast-path.js';
import { loadHot } from './hot-loader.js';
import { NOT_ANSWERED } from './not-answered.js';
import { quickAnswer } from './quick-answers.js';

// Beside this file in dist/, reached through a URL, not a literal specifier, so the build leaves
// them out of it. A path until then: a hot command never parses a URL.
const DIST = __dirname;
const loadFull = (): Promise<typeof import('./full.js')> => import(pathToFileURL(`${DIST}/full.mjs`).href);

async function main(args: string[]): Promise<number> {
  mark('main');
  if (quickAnswer(args, `${DIST}/`)) return 0;
  const fast = parseFast(args);
  const lean = fast === undefined ? undefined : leanBundle(fast);
  if (fast !== undefined && lean !== undefined) {
    const code = await runHot(lean.bundle, fast.flags, lean.cache);
    if (code !== NOT_ANSWERED) return code;
  }
  if (fast && HOT_COMMANDS.has(fast.name)) return runHot(hotBundle(fast.name, process.env), fast.flags);
  // A command that is not hot (a lean one's case it left included) runs from the full command line.
  return (await loadFull()).runFull(args, fast);
}

/** Runs a hot bundle; it reports its own errors (hot/entry.ts). */
async function runHot(name: string, flags: Record<string, unknown>, cache = name): Promise<number> {
  const hot = loadHot(DIST, name, process.env, cache);
  let remembered: Promise<void> | undefined;
  const remember = (code: number) => {
    remembered ??= hot.remember(code);
    return remembered;
  };
  // A command that runs until a person closes it writes its cache once it has started (timing.ts).
  const started = () => void remember(0);
  process.on(STARTED_EVENT, started);
  try {
    const code = await hot.run(flags);
    await remember(code);
    return code;
  } finally {
    process.removeListener(STARTED_EVENT, started);
  }
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
