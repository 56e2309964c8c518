// `doctor` and `prune` as one bundle of their own (see entry.ts): each is a survey of many git
// processes, whose start-up was the full command line's split chunks (which Node 20 cannot
// code-cache). One bundle, so one code cache serves both: `prune` without --yes off a terminal exits
// 2 and writes none, and doctor's run compiles the survey they share.
import type { PruneFlags } from '../commands/prune.js';
import { type HotRun, hotEntry } from './entry.js';

const doctor = hotEntry('doctor', async (flags: { json?: boolean }, ctx) =>
  (await import('../commands/doctor.js')).doctorCommand(flags, ctx),
);
const prune = hotEntry('prune', async ({ words, ...flags }: PruneFlags & { words: string[] }, ctx) =>
  (await import('../commands/prune.js')).pruneCommand(words, flags, ctx),
);

/** `verb`: which of the two (cli/fast-path.ts's `hotBundle`). */
export const run: HotRun = ({ verb, ...flags }) => (verb === 'prune' ? prune(flags) : doctor(flags));
