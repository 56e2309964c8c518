// `host doctor` and `host prune` for `doctor --host` and `prune --host` on another host: the same
// survey and plan as here, run on this host against its own repositories, Herdr and files, with its
// home as the caller's directory. `prune --plan` answers the plan and removes nothing; `prune --yes`
// applies it, each entry rechecked right before its removal, as a local prune does.

import { doctorReport, pruneCleanup } from '../cleanup/session.js';
import type { PlanEntry } from '../core/cleanup/prune-plan.js';
import { PRUNE_CATEGORIES, type PruneCategory } from '../core/cleanup/prune-plan.js';
import { DogsledError } from '../core/common/errors.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { noArguments, type VerbIO, type VerbResult } from './verb-table.js';

export async function doctorVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  noArguments('doctor', args);
  return { value: await doctorReport(io, { cwd: io.home }, LOCAL_HOST.id) };
}

export async function pruneVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const [mode, ...words] = args;
  if (mode !== '--plan' && mode !== '--yes')
    throw new DogsledError('host prune: --plan or --yes comes first');
  const known = new Set<string>(PRUNE_CATEGORIES);
  const bad = words.find((word) => !known.has(word));
  if (bad !== undefined) throw new DogsledError(`host prune: unknown category "${bad}"`);
  const categories = [...new Set(words)] as PruneCategory[];
  let plan: readonly PlanEntry[] = [];
  const warnings: string[] = [];
  const run = await pruneCleanup(
    io,
    { cwd: io.home },
    { host: LOCAL_HOST.id, categories },
    {
      warnings: (lines) => warnings.push(...lines),
      confirm: async (entries) => {
        plan = entries;
        return mode === '--yes';
      },
    },
  );
  const report = run.kind === 'applied' ? run.report : { results: [], skipped: [], failures: [] };
  return { value: { plan, warnings, report } };
}
