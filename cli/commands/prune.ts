// `dogsled prune [--yes] [--json] [--host H] [category ...]`: the doctor survey's removable entries
// as a plan (service/actions/prune-action.ts), shown and confirmed on a terminal (--yes skips the
// question, never a check), then applied entry by entry with a recheck before each removal, here
// or on the peer --host names. Any failure makes the status 2. The panes category needs Herdr or
// tmux; without either a plain prune has no pane entries.

import {
  type PruneReport,
  type PruneUserIO,
  pruneCategories,
  pruneHost,
} from '../../service/actions/prune-action.js';
import { EXIT } from '../../service/core/common/exit-codes.js';
import type { CliContext } from '../context.js';
import { paint } from '../render/color.js';
import { renderFailure, renderPlan, renderResult, renderSkip } from '../render/prune-human.js';
import { writeErr } from '../stdout.js';
import { askOnTerminal } from '../terminal-user.js';
import { cleanupIO } from './doctor.js';

export interface PruneFlags {
  yes?: boolean;
  json?: boolean;
  host?: string;
}

export async function pruneCommand(words: string[], flags: PruneFlags, ctx: CliContext): Promise<number> {
  const categories = pruneCategories(words);
  const colours = paint(ctx.color);
  const empty: PruneReport = { results: [], skipped: [], failures: [] };
  // With --json, stdout holds only the result document: the plan goes to stderr.
  const show = flags.json ? writeErr : ctx.out;
  const io: PruneUserIO = {
    ...(await cleanupIO(ctx)),
    ask: askOnTerminal,
    planned: (plan) => show(`${renderPlan(plan, colours).join('\n')}\n`),
    pruned: (outcome) => {
      if (flags.json) return;
      if (outcome.kind === 'result') {
        ctx.out(`${renderResult(outcome.result, colours, outcome.skip)}\n`);
        if (outcome.skip) ctx.out(`${renderSkip(outcome.skip, colours)}\n`);
      } else if (outcome.kind === 'skip') ctx.out(`${renderSkip(outcome.skip, colours)}\n`);
      else {
        if (outcome.result) ctx.out(`${renderResult(outcome.result, colours)}\n`);
        writeErr(`${renderFailure(outcome.failure, paint(false))}\n`);
      }
    },
  };
  const done = await pruneHost(io, { host: flags.host, categories, yes: Boolean(flags.yes) });
  if (done.kind === 'nothing') {
    ctx.out(flags.json ? `${JSON.stringify(empty)}\n` : 'nothing to prune\n');
    return 0;
  }
  if (done.kind === 'declined') {
    show('nothing removed\n');
    if (flags.json) ctx.out(`${JSON.stringify(empty)}\n`);
    return done.interrupted ? EXIT.interrupted : EXIT.ok;
  }
  if (flags.json) ctx.out(`${JSON.stringify(done.report)}\n`);
  return done.report.failures.length > 0 ? 2 : 0;
}
