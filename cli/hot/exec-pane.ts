// `exec ID [-- CMD]` in a job pane, the wrapper alone, as a bundle of its own (see entry.ts): it hands
// its job to the warm supervisor or starts one as another process, so it carries none of the
// supervisor's code (cli/hot/exec.ts has it). cli/fast-path.ts's hotBundle picks it for an `exec`
// without DOGSLED_EXEC_SUPERVISOR.
import { execPaneCommand } from '../commands/exec.js';
import { hotEntry } from './entry.js';

export const run = hotEntry('exec', (flags: { id: string; command?: string[] }, ctx) =>
  execPaneCommand(flags.id, flags.command, ctx),
);
