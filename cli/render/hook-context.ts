// Prompt context for people and models: the owner's own work first (what to land, what needs
// attention, what runs, what waits), then the fleet lines of `status --brief`. Every name and
// command came from a file other programs write, so each is one escape-free, bounded line.

import type { HookContext } from '../../service/actions/hook.js';
import { sweepCounts } from '../../service/core/cleanup/sweep-rule.js';
import { formatAge } from '../../service/core/common/duration.js';
import type { OwnerWork, WorkEntry } from '../../service/core/inbox/owner-work.js';
import { clip, plainLine } from '../../service/core/text/clean.js';
import { renderBrief } from './status-brief.js';
import { sweepLine } from './status-sweep.js';
import { commandLine } from './text.js';

/** A line of the owner summary; entries past this are counted, not named. */
const ENTRIES_PER_LINE = 4;
const LINE_WIDTH = 240;

function entryText(entry: WorkEntry, now: number): string {
  const command = entry.command === null ? '' : ` ${clip(commandLine(entry.command), 40)}`;
  return `${plainLine(entry.label)}${command} ${clip(plainLine(entry.state), 80)} ${formatAge(Math.max(0, now - entry.since_ms))}`;
}

function groupLine(title: string, entries: readonly string[]): string | undefined {
  if (entries.length === 0) return undefined;
  const shown = entries.slice(0, ENTRIES_PER_LINE);
  const more = entries.length - shown.length;
  return clip(`${title}: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`, LINE_WIDTH);
}

/** The owner summary: a count line, then one line per group that has entries. */
export function renderOwnerWork(work: OwnerWork, now: number): string[] {
  const counts = [
    [work.toLand.length, 'to land'],
    [work.attention.length, 'need attention'],
    [work.idle.length, 'idle'],
    [work.done.length, 'done'],
    [work.running.length, 'running'],
    [work.queued.length, 'queued'],
  ] as const;
  const summary = counts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  if (summary.length === 0) return [];
  const land = work.toLand.map((row) => {
    const facts = [`branch ${clip(plainLine(row.branch), 120)}`];
    if (row.ahead > 0) facts.push(`+${row.ahead}`);
    if (row.dirty) facts.push('dirty');
    if (row.host !== 'local') facts.push(`on ${clip(plainLine(row.host), 60)}`);
    return `${clip(plainLine(row.name), 60)} (${facts.join(' ')})`;
  });
  const text = (list: readonly WorkEntry[]) => list.map((entry) => entryText(entry, now));
  return [
    `Your work: ${summary.join(' · ')} · details: dogsled items --owner "$HERDR_PANE_ID"`,
    groupLine('To land', land),
    groupLine('Attention', text(work.attention)),
    groupLine('Running', text(work.running)),
    groupLine('Idle', text(work.idle)),
    groupLine('Done', text(work.done)),
    groupLine('Queued', text(work.queued)),
  ].filter((line): line is string => line !== undefined);
}

/**
 * One line on the latest cleanup pass, only when it failed or warned, or found something in the
 * caller's own work (those counts are the caller's alone; the rest belong to `dogsled status`).
 */
export function renderSweepLine(context: Pick<HookContext, 'sweep' | 'ownFindings'>, now: number): string[] {
  const pass = context.sweep;
  if (pass === null) return [];
  const counts = sweepCounts(pass);
  if (counts.failed === 0 && counts.warnings === 0 && context.ownFindings === 0) return [];
  const own = context.ownFindings > 0 ? `; ${context.ownFindings} in work you created` : '';
  return [clip(`Cleanup: ${sweepLine(pass, now)}${own} · details: dogsled status`, LINE_WIDTH)];
}

/** The whole prompt context: the owner's work first, then the fleet. */
export function renderHookContext(context: HookContext, now: number): string {
  const fleet = renderBrief(context.hosts, {
    openItems: context.openItems,
    pendingTickets: context.pendingTickets,
    orphaned: context.orphaned,
  });
  return [...renderOwnerWork(context.work, now), ...renderSweepLine(context, now), ...fleet].join('\n');
}
