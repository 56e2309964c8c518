// `run [flags] -- CMD...` as a bundle of its own (see entry.ts).
import { type RunFlags, runJobCommand } from '../commands/run.js';
import { hotEntry } from './entry.js';

export const run = hotEntry('run', (flags: RunFlags & { command: string[] }, ctx) => {
  const { command, ...rest } = flags;
  return runJobCommand(command, rest, ctx);
});
