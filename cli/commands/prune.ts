// `dogsled prune [--yes] [--json] [--host H] [category ...]`: the doctor survey's removable entries
// as a plan, shown and confirmed on a terminal (--yes skips the question, never a check), then
// applied entry by entry with a recheck before each removal. Any failure makes the status 2.
// The panes category needs Herdr; without it a plain prune simply has no pane entries.

import { createInterface } from 'node:readline/promises';
import { surveyCleanup } from '../../service/cleanup/doctor.js';
import { applyPlan, type PruneIO } from '../../service/cleanup/prune.js';
import type { PruneReport } from '../../service/cleanup/report.js';
import { paneContext } from '../../service/cleanup/terminal-facts.js';
import { worktreePanes } from '../../service/cleanup/worktree-panes.js';
import { PRUNE_CATEGORIES, type PruneCategory, selectPlan } from '../../service/core/prune-plan.js';
import { DogsledError } from '../../service/errors.js';
import { LOCAL_HOST } from '../../service/hosts/local.js';
import type { CliContext } from '../context.js';
import { localHostFlag } from '../flags.js';
import { paint } from '../render/color.js';
import { renderFailure, renderPlan, renderResult, renderSkip } from '../render/prune-human.js';
import { cleanupIO, readTerminal } from './doctor.js';

export interface PruneFlags {
  yes?: boolean;
  json?: boolean;
  host?: string;
}

export function parseCategories(words: readonly string[]): PruneCategory[] {
  const known = new Set<string>(PRUNE_CATEGORIES);
  for (const word of words) {
    if (!known.has(word)) {
      throw new DogsledError(
        `prune: unknown category "${word}" (choose from ${PRUNE_CATEGORIES.join(', ')})`,
      );
    }
  }
  return [...new Set(words)] as PruneCategory[];
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

export async function pruneCommand(words: string[], flags: PruneFlags, ctx: CliContext): Promise<number> {
  localHostFlag(flags.host, LOCAL_HOST);
  const categories = parseCategories(words);
  const terminal = await readTerminal(ctx);
  const herdr = terminal.herdr;
  if (categories.includes('panes') && herdr === null) {
    throw new DogsledError(`prune panes: needs Herdr (${terminal.why})`);
  }
  const io = await cleanupIO(ctx, terminal);
  const colours = paint(ctx.color);
  const removesWorktrees = categories.length === 0 || categories.includes('worktrees');
  const survey = await surveyCleanup(io, { processes: false, host: LOCAL_HOST.id, removesWorktrees });
  for (const warning of survey.report.warnings) ctx.warn(`dogsled: warning: ${warning}`);
  const plan = selectPlan(survey.plan, categories);
  const empty: PruneReport = { results: [], skipped: [], failures: [] };
  // With --json, stdout holds only the result document: the plan goes to stderr.
  const show = flags.json ? (text: string) => process.stderr.write(text) : ctx.out;
  if (plan.length === 0) {
    if (flags.json) ctx.out(`${JSON.stringify(empty)}\n`);
    else ctx.out('nothing to prune\n');
    return 0;
  }
  show(`${renderPlan(plan, colours).join('\n')}\n`);
  if (!flags.yes) {
    if (!(process.stdin.isTTY && process.stderr.isTTY)) {
      throw new DogsledError(
        'prune: not a terminal, so nothing was removed: pass --yes to remove the plan above',
      );
    }
    if (!(await confirm(`Remove ${plan.length} entr${plan.length === 1 ? 'y' : 'ies'}? [y/N] `))) {
      show('nothing removed\n');
      if (flags.json) ctx.out(`${JSON.stringify(empty)}\n`);
      return 0;
    }
  }
  // Each removal's recheck reads Herdr again, and closes only what is still idle.
  const pruneIO: PruneIO = herdr
    ? {
        ...io,
        holds: herdr.liveHolds,
        closures: {
          port: herdr.live,
          paneContext: () => paneContext(io, herdr.callerPaneId),
          worktreePanes: (path) => worktreePanes(herdr.live, path, herdr.callerPaneId),
        },
      }
    : io;
  const report = await applyPlan(pruneIO, survey, plan, (outcome) => {
    if (flags.json) return;
    if (outcome.kind === 'result') {
      ctx.out(`${renderResult(outcome.result, colours, outcome.skip)}\n`);
      if (outcome.skip) ctx.out(`${renderSkip(outcome.skip, colours)}\n`);
    } else if (outcome.kind === 'skip') ctx.out(`${renderSkip(outcome.skip, colours)}\n`);
    else {
      if (outcome.result) ctx.out(`${renderResult(outcome.result, colours)}\n`);
      process.stderr.write(`${renderFailure(outcome.failure, paint(false))}\n`);
    }
  });
  if (flags.json) ctx.out(`${JSON.stringify(report)}\n`);
  return report.failures.length > 0 ? 2 : 0;
}
