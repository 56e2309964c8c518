// The latest cleanup pass as `status` shows it: one line of counts and age, then each failure,
// warning and hold (removals stay in the journal and --json). Paths and reasons come from git and
// other programs, so each line is escape-free and clipped.

import type { SweepPass } from '../../service/actions/status.js';
import { sweepCounts, sweepCountsText } from '../../service/core/cleanup/sweep-rule.js';
import { formatAge } from '../../service/core/common/duration.js';
import { clip, plainLine } from '../../service/core/text/clean.js';

/** Findings listed under the line; the rest are counted. */
const SHOWN = 8;
const WIDTH = 78;

export function sweepLine(pass: SweepPass, now: number): string {
  return `last pass ${formatAge(now - pass.finished_ms)} ago: ${sweepCountsText(sweepCounts(pass))}`;
}

export function renderSweep(pass: SweepPass | null, now: number): string[] {
  if (pass === null) return [];
  const findings = [
    ...(pass.error === null ? [] : [`pass failed: ${pass.error}`]),
    ...pass.failures.map((f) => `failed ${f.kind} ${f.path}: ${f.error}`),
    ...pass.warnings.map((w) => `warning: ${w}`),
    ...pass.unlinked.map((h) => `held: ${h.reason}`),
    ...pass.landed_dirty.map(
      (d) => `held: ${d.checkout} landed but dirty (${d.dirty} ${d.dirty === 1 ? 'path' : 'paths'})`,
    ),
    ...(pass.orphans ?? []).map((o) => `held: orphan ${o.name ?? o.item} (${o.pane ?? '-'}): ${o.reason}`),
  ];
  const lines = [`cleanup   ${sweepLine(pass, now)}`];
  for (const text of findings.slice(0, SHOWN)) lines.push(clip(`  - ${plainLine(text)}`, WIDTH));
  if (findings.length > SHOWN) lines.push(`  - and ${findings.length - SHOWN} more (dogsled status --json)`);
  return lines;
}
