// What the entry (cli/main.ts) runs for every command: argv to the bundle that answers it. It is a
// bundle of its own (dist/hot/dispatch.cjs), compiled with V8's code cache like the others, so the
// flag parsing, the choice of bundle and the rest of a start-up are not parsed and compiled from
// source on every run: as part of the entry they were some 20 KB of source, about 3 M instructions
// of every hot command. The entry keeps only what loads this file (hot-loader.ts) and hands it over,
// with the entry's own `import()` of the full command line: a vm.Script has no module loader.

import { mark, STARTED_EVENT } from '../../service/actions/timing-marks.js';
import { HOT_COMMANDS, hotBundle, leanBundle, parseFast } from '../fast-path.js';
import type { loadHot } from '../hot-loader.js';
import { NOT_ANSWERED } from '../not-answered.js';

/** What the entry gives the dispatcher: its directory, its bundle loader and its door to full.mjs. */
export interface EntryHost {
  /** The directory of the built entry (dist/), a path. */
  dist: string;
  loadHot: typeof loadHot;
  loadFull: () => Promise<typeof import('../full.js')>;
  /**
   * A command that runs until a person closes it has started: the entry writes the dispatcher's
   * cache now, as the bundle's is (such a command seldom exits 0: a closed pane ends it with a signal).
   */
  started?: () => void;
}

export type Dispatch = (args: string[], entry: EntryHost) => Promise<number>;

export const run: Dispatch = async (args, entry) => {
  mark('dispatch');
  const fast = parseFast(args);
  const lean = fast === undefined ? undefined : leanBundle(fast);
  if (fast !== undefined && lean !== undefined) {
    const code = await runHot(entry, lean.bundle, fast.flags, false, lean.cache);
    if (code !== NOT_ANSWERED) return code;
  }
  if (fast && HOT_COMMANDS.has(fast.name))
    return runHot(entry, hotBundle(fast.name, process.env), fast.flags, true);
  // A command that is not hot (a lean one's case it left included) runs from the full command line.
  return (await entry.loadFull()).runFull(args, fast);
};

/**
 * Runs a hot bundle; it reports its own errors (hot/entry.ts). A command that runs until a person
 * closes it (the sidebar, the dash) writes its cache once it has started (timing.ts): a lean bundle
 * answers and ends, so it listens for nothing (the listener's removal was Node's events code to
 * compile on every hook).
 */
async function runHot(
  entry: EntryHost,
  name: string,
  flags: Record<string, unknown>,
  long: boolean,
  cache = name,
): Promise<number> {
  const hot = entry.loadHot(entry.dist, name, process.env, cache);
  let remembered: Promise<void> | undefined;
  const remember = (code: number) => {
    remembered ??= hot.remember(code);
    return remembered;
  };
  const started = () => {
    void remember(0);
    entry.started?.();
  };
  if (long) process.on(STARTED_EVENT, started);
  try {
    const code = await hot.run(flags);
    await remember(code);
    return code;
  } finally {
    if (long) process.removeListener(STARTED_EVENT, started);
  }
}
