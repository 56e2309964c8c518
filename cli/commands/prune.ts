// `dogsled prune [--yes] [--json] [--host H] [category ...]`: the doctor survey's removable entries
// as a plan (service/cleanup/session.ts), shown and confirmed on a terminal (--yes skips the
// question, never a check), then applied entry by entry with a recheck before each removal. Any
// failure makes the status 2. The panes category needs Herdr or tmux; without either a plain prune has
// no pane entries.

import { createInterface } from 'node:readline/promises';
import type { PruneReport } from '../../service/cleanup/doctor-report.js';
import { pruneCleanup } from '../../service/cleanup/session.js';
import {
  type PlanEntry,
  PRUNE_CATEGORIES,
  type PruneCategory,
} from '../../service/core/cleanup/prune-plan.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { EXIT } from '../../service/core/common/exit-codes.js';
import { LOCAL_HOST } from '../../service/hosts/local-facts.js';
import { hostOfFlag, remotePrune } from '../../service/hosts/peer-cleanup.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';
import { paint } from '../render/color.js';
import { renderFailure, renderPlan, renderResult, renderSkip } from '../render/prune-human.js';
import { cleanupCaller } from './doctor.js';

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

type Answer = 'yes' | 'no' | 'interrupted';

/** Ctrl-D is a no; Ctrl-C (readline aborts the question with either) interrupts. */
async function confirm(question: string): Promise<Answer> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim()) ? 'yes' : 'no';
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
    process.stderr.write('\n');
    return /Ctrl\+C/.test((error as Error).message) ? 'interrupted' : 'no';
  } finally {
    rl.close();
  }
}

export async function pruneCommand(words: string[], flags: PruneFlags, ctx: CliContext): Promise<number> {
  const categories = parseCategories(words);
  const io = await hostIO(ctx);
  const peer = await hostOfFlag(io, flags.host);
  const colours = paint(ctx.color);
  const empty: PruneReport = { results: [], skipped: [], failures: [] };
  // With --json, stdout holds only the result document: the plan goes to stderr.
  const show = flags.json ? (text: string) => process.stderr.write(text) : ctx.out;
  let interrupted = false;
  const declined = (): number => {
    show('nothing removed\n');
    if (flags.json) ctx.out(`${JSON.stringify(empty)}\n`);
    return interrupted ? EXIT.interrupted : EXIT.ok;
  };
  const ask = async (plan: readonly PlanEntry[]): Promise<boolean> => {
    show(`${renderPlan(plan, colours).join('\n')}\n`);
    if (flags.yes) return true;
    if (!(process.stdin.isTTY && process.stderr.isTTY)) {
      throw new DogsledError(
        'prune: not a terminal, so nothing was removed: pass --yes to remove the plan above',
      );
    }
    const answer = await confirm(`Remove ${plan.length} entr${plan.length === 1 ? 'y' : 'ies'}? [y/N] `);
    interrupted = answer === 'interrupted';
    return answer === 'yes';
  };
  if (peer !== null) {
    // The peer plans; the user answers here; the peer rechecks each entry as it removes it.
    let remote = await remotePrune(io, peer, categories, Boolean(flags.yes));
    for (const warning of remote.warnings) ctx.warn(`dogsled: warning: ${peer.label}: ${warning}`);
    if (remote.plan.length === 0) {
      ctx.out(flags.json ? `${JSON.stringify(empty)}\n` : 'nothing to prune\n');
      return 0;
    }
    if (!(await ask(remote.plan))) return declined();
    if (!flags.yes) remote = await remotePrune(io, peer, categories, true);
    const { report } = remote;
    if (flags.json) ctx.out(`${JSON.stringify(report)}\n`);
    else {
      for (const result of report.results) ctx.out(`${renderResult(result, colours)}\n`);
      for (const skip of report.skipped) ctx.out(`${renderSkip(skip, colours)}\n`);
      for (const failure of report.failures)
        process.stderr.write(`${renderFailure(failure, paint(false))}\n`);
    }
    return report.failures.length > 0 ? 2 : 0;
  }
  const run = await pruneCleanup(
    io,
    cleanupCaller(),
    { host: LOCAL_HOST.id, categories },
    {
      warnings: (lines) => {
        for (const warning of lines) ctx.warn(`dogsled: warning: ${warning}`);
      },
      confirm: ask,
      outcome: (outcome) => {
        if (flags.json) return;
        if (outcome.kind === 'result') {
          ctx.out(`${renderResult(outcome.result, colours, outcome.skip)}\n`);
          if (outcome.skip) ctx.out(`${renderSkip(outcome.skip, colours)}\n`);
        } else if (outcome.kind === 'skip') ctx.out(`${renderSkip(outcome.skip, colours)}\n`);
        else {
          if (outcome.result) ctx.out(`${renderResult(outcome.result, colours)}\n`);
          process.stderr.write(`${renderFailure(outcome.failure, paint(false))}\n`);
        }
      },
    },
  );
  if (run.kind === 'nothing') {
    ctx.out(flags.json ? `${JSON.stringify(empty)}\n` : 'nothing to prune\n');
    return 0;
  }
  if (run.kind === 'declined') return declined();
  if (flags.json) ctx.out(`${JSON.stringify(run.report)}\n`);
  return run.report.failures.length > 0 ? 2 : 0;
}
