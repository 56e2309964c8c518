// `dogsled done [--json]`, as a child in its final working turn: marks the task complete
// (service/actions/done.ts). The service closes the child once the turn ends.

import { markDone } from '../../service/actions/done.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export interface DoneFlags {
  json?: boolean;
}

export async function doneCommand(flags: DoneFlags, ctx: CliContext): Promise<number> {
  const mark = await markDone(await hostIO(ctx));
  if (flags.json) ctx.out(`${JSON.stringify(mark)}\n`);
  else {
    ctx.out(
      `done: marked ${mark.id}; end your turn with your final reply: dogsled hands it to your owner, then closes this pane and its worktree and keeps the branch\n`,
    );
  }
  return 0;
}
