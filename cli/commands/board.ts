// `dogsled board [--json] [--owner PANE]`: the caller's children, jobs and tickets grouped by what the
// owner must do (service/core/board/board-rule.ts); `--json` is the document the Pi widget and the sidebar draw.
// `board --open` / `--toggle` open, reuse or close the caller's board docked at the left of its tab;
// `board --dismiss ID` marks an ATTENTION row seen, which moves it to DONE for that owner.

import { boardOf, dismissBoardRow, dockBoard } from '../../service/actions/board.js';
import { DogsledError } from '../../service/core/common/errors.js';
import type { CliContext } from '../context.js';
import { dismissedText, renderBoard } from '../render/board-human.js';
import { paint } from '../render/color.js';

export interface BoardFlags {
  json?: boolean;
  owner?: string;
  open?: boolean;
  toggle?: boolean;
  dismiss?: string;
}

export async function boardCommand(flags: BoardFlags, ctx: CliContext): Promise<number> {
  if (flags.open && flags.toggle) throw new DogsledError('choose one of --open and --toggle');
  if (flags.dismiss !== undefined && (flags.open || flags.toggle)) {
    throw new DogsledError('--dismiss reads the board; it does not go with --open or --toggle');
  }
  if (flags.open || flags.toggle) {
    if (flags.owner !== undefined) throw new DogsledError('--owner applies to the board read, not --open');
    const docked = await dockBoard(ctx, { toggle: Boolean(flags.toggle) });
    if (flags.json) ctx.out(`${JSON.stringify(docked)}\n`);
    else ctx.out(`${docked.action} the board of tab ${docked.tab} (pane ${docked.pane})\n`);
    return 0;
  }
  if (flags.dismiss !== undefined) {
    const done = await dismissBoardRow(ctx, flags.owner ?? null, flags.dismiss);
    if (flags.json)
      ctx.out(`${JSON.stringify(done)}
`);
    else
      ctx.out(`${dismissedText(done)}
`);
    return 0;
  }
  const board = await boardOf(ctx, flags.owner ?? null);
  if (flags.json) ctx.out(`${JSON.stringify(board)}\n`);
  else ctx.out(`${renderBoard(board, paint(ctx.color)).join('\n')}\n`);
  return 0;
}
