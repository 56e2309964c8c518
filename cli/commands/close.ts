// `dogsled close PANE [--host H] [--json]`: ends a child now (service/actions/close.ts) and prints
// {pane,worktree:{path,branch,workspace,branch_deleted,anchor_closed?}|null,pane_closed}.

import { closePane } from '../../service/actions/close.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export interface CloseFlags {
  host?: string;
  json?: boolean;
}

export async function closeCommand(pane: string, flags: CloseFlags, ctx: CliContext): Promise<number> {
  const result = await closePane(await hostIO(ctx), pane, flags.host ?? null);
  if (flags.json) {
    ctx.out(`${JSON.stringify(result)}\n`);
    return 0;
  }
  const lines = [`closed ${result.pane}${result.pane_closed ? '' : ' (it was already gone)'}`];
  const wt = result.worktree;
  if (wt !== null) {
    const branch =
      wt.branch === null
        ? ''
        : wt.branch_deleted
          ? `, branch ${wt.branch} deleted`
          : `, branch ${wt.branch} kept`;
    lines.push(`removed worktree ${wt.path}${branch}${wt.anchor_closed ? ', anchor workspace closed' : ''}`);
  }
  ctx.out(`${lines.join('\n')}\n`);
  return 0;
}
