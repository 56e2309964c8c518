// One line per agent pane under its host in `dogsled status`: where it is, who it is, its state and
// age, its worktree, and a stall mark. Text that came from the agent never reaches this view.

import type { AgentPane } from '../../service/actions/status.js';
import { formatAge } from '../../service/core/common/duration.js';
import { clip } from '../../service/core/text/clean.js';
import type { Paint } from './color.js';

export const SHOWN_PANES = 12;
// Column widths that keep a pane line within 80 columns: 4 + 7 + 18 + 14 + branch, +N and dirty.
const WHO_WIDTH = 18;
const STATE_WIDTH = 14;
const BRANCH_WIDTH = 16;

export function renderAgentPanes(panes: readonly AgentPane[], now: number, paint: Paint): string[] {
  const ordered = [...panes].sort(byAttention);
  const lines = ordered.slice(0, SHOWN_PANES).map((pane) => `    ${paneLine(pane, now, paint)}`);
  const more = ordered.length - SHOWN_PANES;
  if (more > 0) lines.push(`    +${more} more (dogsled status --json lists every pane)`);
  return lines;
}

function paneLine(pane: AgentPane, now: number, paint: Paint): string {
  const who = clip(pane.name ? `${pane.agent} ${pane.name}` : pane.agent, WHO_WIDTH);
  const parts = [clip(pane.pane, 7).padEnd(7), who.padEnd(WHO_WIDTH), stateText(pane, now, paint)];
  const tree = worktreeText(pane);
  if (tree) parts.push(tree);
  return parts.join(' ').trimEnd();
}

/** A stalled agent shows how long its transcript has been quiet instead of its state age. */
function stateText(pane: AgentPane, now: number, paint: Paint): string {
  if (pane.stalled_since_ms !== null) {
    const quietSince = pane.transcript_modified ?? pane.stalled_since_ms;
    return paint.red(`stalled ${formatAge(now - quietSince)}`.padEnd(STATE_WIDTH));
  }
  const text = `${pane.state} ${formatAge(now - pane.state_since_ms)}`.padEnd(STATE_WIDTH);
  return stateColour(pane.state, paint)(text);
}

function worktreeText(pane: AgentPane): string {
  if (pane.branch === null) return '';
  const bits = [clip(pane.branch, BRANCH_WIDTH)];
  if (pane.ahead) bits.push(`+${pane.ahead}`);
  if (pane.dirty) bits.push('dirty');
  if (pane.landed) bits.push('landed');
  return bits.join(' ');
}

function stateColour(state: string, paint: Paint): (text: string) => string {
  if (state === 'blocked') return paint.yellow;
  if (state === 'working') return paint.green;
  return (text) => text;
}

/** Stalled first, then blocked, working, the rest; by pane id within a group. */
function byAttention(a: AgentPane, b: AgentPane): number {
  return rank(a) - rank(b) || a.pane.localeCompare(b.pane);
}

function rank(pane: AgentPane): number {
  if (pane.stalled_since_ms !== null) return 0;
  if (pane.state === 'blocked') return 1;
  if (pane.state === 'working') return 2;
  return 3;
}
