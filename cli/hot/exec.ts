// `exec ID [-- CMD]`, the job wrapper and its supervisor, as a bundle of its own (see entry.ts).
import { execCommand } from '../commands/exec.js';
import { hotEntry } from './entry.js';

export const run = hotEntry('exec', (flags: { id: string; command?: string[] }, ctx) =>
  execCommand(flags.id, flags.command, ctx),
);
