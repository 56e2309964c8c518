// The Agents & Jobs panel: the board's groups (service/core/board/board-rule.ts), each a header line and one
// three-line card per row: a state pill and the title; what and where; age and why. A folded group
// is its header alone (DONE starts folded). The selected card is drawn on the selection colour.

import type { Board, BoardGroupId, BoardRow } from '../../service/core/board/board-rule.js';
import { formatAge } from '../../service/core/common/duration.js';
import { cells, clipCells, displayText, fitCells } from './cells.js';
import { fill } from './hosts.js';
import { type Line, type Role, rowKey, type Segment } from './types.js';

export const GROUP_ROLE: Record<BoardGroupId, Role> = {
  to_land: 'mauve',
  attention: 'red',
  running: 'yellow',
  waiting: 'blue',
  done: 'green',
};

export function groupFold(id: BoardGroupId): string {
  return `group:${id}`;
}

export function workLines(
  board: Board | null,
  width: number,
  folded: readonly string[],
  selected: string | null,
): Line[] {
  if (board === null) return [{ segments: [{ text: fitCells('board unavailable', width), fg: 'red' }] }];
  const lines: Line[] = [];
  for (const group of board.groups) {
    if (group.rows.length === 0) continue;
    const isFolded = folded.includes(groupFold(group.id));
    const head = `${isFolded ? '▸' : '▾'} ${group.title} ${group.rows.length}`;
    lines.push({
      segments: [{ text: fitCells(head, width), fg: GROUP_ROLE[group.id], bold: true }],
      fold: groupFold(group.id),
    });
    if (isFolded) continue;
    for (const row of group.rows) lines.push(...card(row, width, rowKey(row) === selected));
  }
  if (lines.length === 0) {
    lines.push({ segments: [{ text: fitCells('no agents or jobs', width), fg: 'overlay0' }] });
  }
  return lines;
}

function pillText(row: BoardRow): string {
  const state = displayText(row.state) || row.kind;
  return row.place !== null ? ` #${row.place} ${state} ` : ` ${state} `;
}

function card(row: BoardRow, width: number, selected: boolean): Line[] {
  const key = rowKey(row);
  const role = GROUP_ROLE[row.group];
  const mark: Segment = selected ? { text: '▌', fg: 'accent' } : { text: ' ' };
  const pill = clipCells(pillText(row), Math.max(4, Math.floor(width / 2)));
  const title = displayText(row.title);
  const line1 = fill(
    [
      mark,
      { text: pill, fg: 'panel_bg', bg: role, bold: true, inverse: true },
      { text: ` ${title}`, fg: 'text' },
    ],
    1 + cells(pill) + 1 + cells(title),
    width,
  );
  const where = [row.host, row.pane].filter((part): part is string => Boolean(part)).map(displayText);
  const what = `${row.kind} ${displayText(row.id)}${where.length > 0 ? ` · ${where.join(' ')}` : ''}`;
  const line2 = fill([mark, { text: ` ${what}`, fg: 'subtext0' }], 1 + 1 + cells(what), width);
  const age = row.age_ms === null ? '' : formatAge(row.age_ms);
  const why = displayText(row.reason ?? row.detail ?? '');
  const tail = [age, why].filter(Boolean).join(' · ');
  const line3 = fill(
    [mark, { text: ` ${tail}`, fg: row.reason !== null ? role : 'overlay1' }],
    1 + 1 + cells(tail),
    width,
  );
  const lines = [line1, line2, line3].map((segments) => ({
    segments: selected ? segments.map((s) => (s.bg ? s : { ...s, bg: 'surface0' as Role })) : segments,
    row: key,
  }));
  return lines;
}
