// The Agents & Jobs panel: the board's groups (service/core/board/board-rule.ts), each a header line and one card
// per row. A card says first what the owner must do (a pill: "+1 to land", "exit 3", "blocked", "#2
// queued") and then the title; then kind, id and where; then age and why. Nothing the owner acts on
// is cut: a pill, an id or a reason that does not fit wraps to the next line, and only names
// (titles, branches, models, directories) are shortened, from the middle. A folded group is its
// header alone (DONE starts folded). The selected card is marked `▌` and drawn on the selection colour.

import type { Board, BoardGroupId, BoardRow } from '../../service/core/board/board-rule.js';
import { formatAge } from '../../service/core/common/duration.js';
import type { CardMemo } from './card-memo.js';
import { cells, displayText, fitCells, middleCells, wrapWords } from './cells.js';
import { rowAction, rowWhy } from './reasons.js';
import { type Line, type Role, rowKey, type Segment, type SidebarHost } from './types.js';

export const GROUP_ROLE: Record<BoardGroupId, Role> = {
  to_land: 'mauve',
  attention: 'red',
  running: 'yellow',
  waiting: 'blue',
  done: 'green',
};

/** A title keeps at least this many cells beside its pill, else it takes a line of its own. */
const TITLE_MIN = 8;

export function groupFold(id: BoardGroupId): string {
  return `group:${id}`;
}

export function workLines(
  board: Board | null,
  width: number,
  folded: readonly string[],
  selected: string | null,
  hosts: readonly SidebarHost[] = [],
  memo?: CardMemo,
): Line[] {
  if (board === null) return [{ segments: [{ text: fitCells('board unavailable', width), fg: 'red' }] }];
  const lines: Line[] = [];
  for (const group of board.groups) {
    if (group.rows.length === 0) continue;
    const isFolded = folded.includes(groupFold(group.id));
    const seen = group.id === 'done' ? group.rows.filter((row) => row.seen_ms !== null).length : 0;
    const head = `${isFolded ? '▸' : '▾'} ${group.title} ${group.rows.length}${seen > 0 ? ` (${seen} seen)` : ''}`;
    lines.push({
      segments: [{ text: fitCells(head, width), fg: GROUP_ROLE[group.id], bold: true }],
      fold: groupFold(group.id),
    });
    if (isFolded) continue;
    for (const row of group.rows) {
      const chosen = rowKey(row) === selected;
      lines.push(...(memo ? memo.card(row, width, chosen, hosts) : card(row, width, chosen, hosts)));
    }
  }
  if (lines.length === 0) {
    lines.push({ segments: [{ text: fitCells('no agents or jobs', width), fg: 'overlay0' }] });
  }
  return lines;
}

/** Exactly `width` cells: the segments, then spaces. The caller keeps them within the width. */
function padded(parts: Segment[], width: number): Segment[] {
  const used = parts.reduce((sum, s) => sum + cells(s.text), 0);
  return used < width ? [...parts, { text: ' '.repeat(width - used) }] : parts;
}

export function card(row: BoardRow, width: number, selected: boolean, hosts: readonly SidebarHost[]): Line[] {
  return cardLines(row, selected, [
    ...cardHead(row, width, selected),
    ...cardTail(row, width, selected, hosts),
  ]);
}

/** The age a card shows: the one part of it a redraw without a read changes. */
export function shownAge(row: BoardRow): string {
  return row.age_ms === null ? '' : formatAge(row.age_ms);
}

/** The mark a card's every line starts with: `▌` on the selected card. */
function markOf(selected: boolean): Segment {
  return selected ? { text: '▌', fg: 'accent' } : { text: ' ' };
}

/** The lines of a card that do not depend on its age: the pill and title, then kind, id and where. */
export function cardHead(row: BoardRow, width: number, selected: boolean): Segment[][] {
  const role = GROUP_ROLE[row.group];
  const mark = markOf(selected);
  const inner = Math.max(1, width - 1);
  const out: Segment[][] = [];
  const push = (parts: Segment[]) => out.push(padded([mark, ...parts], width));

  // The pill, wrapped by words when it is wider than the card (never cut).
  const pillRoom = Math.max(1, inner - 2);
  const pills = wrapWords(rowAction(row), pillRoom).map((chunk) => ` ${chunk} `);
  const pill = (text: string): Segment => ({ text, fg: 'panel_bg', bg: role, bold: true, inverse: true });
  const title = displayText(row.title);
  const last = pills.pop() as string;
  for (const chunk of pills) push([pill(chunk)]);
  const beside = inner - cells(last) - 1;
  if (title === '') push([pill(last)]);
  else if (beside >= Math.min(TITLE_MIN, cells(title))) {
    push([pill(last), { text: ` ${middleCells(title, beside)}`, fg: 'text' }]);
  } else {
    push([pill(last)]);
    push([{ text: ` ${middleCells(title, inner - 1)}`, fg: 'text' }]);
  }

  // Kind, id, host and pane: ids are what stop, cancel and --dismiss take, so they wrap whole.
  const where = [row.host, row.pane].filter((part): part is string => Boolean(part)).map(displayText);
  const what = `${row.kind} ${displayText(row.id)}${where.length > 0 ? ` · ${where.join(' ')}` : ''}`;
  for (const chunk of wrapWords(what, inner - 1)) push([{ text: ` ${chunk}`, fg: 'subtext0' }]);
  return out;
}

/** The lines of a card from its age on: the age, then why (a WAITING ticket's why reads the hosts). */
export function cardTail(
  row: BoardRow,
  width: number,
  selected: boolean,
  hosts: readonly SidebarHost[],
): Segment[][] {
  const role = GROUP_ROLE[row.group];
  const mark = markOf(selected);
  const inner = Math.max(1, width - 1);
  const out: Segment[][] = [];
  const push = (parts: Segment[]) => out.push(padded([mark, ...parts], width));

  // Age, then why: a reason wraps whole; a description (model, directory) is shortened in the middle.
  const age = shownAge(row);
  const why = rowWhy(row, hosts);
  const fg: Role = why?.long ? (row.group === 'done' ? 'overlay1' : role) : 'overlay1';
  if (why === null) {
    if (age) push([{ text: ` ${age}`, fg: 'overlay1' }]);
  } else if (why.long) {
    const text = row.seen_ms !== null ? `seen · ${why.text}` : why.text;
    const chunks = wrapWords(age ? `${age} · ${text}` : text, inner - 1);
    for (const chunk of chunks) push([{ text: ` ${chunk}`, fg }]);
  } else {
    const lead = `${age ? `${age} · ` : ''}${why.lead ?? ''}`;
    const room = inner - 1 - cells(lead);
    const tail = why.tail === undefined ? '' : ` · ${why.tail}`;
    if (cells(why.text) + cells(tail) <= room) push([{ text: ` ${lead}${why.text}${tail}`, fg }]);
    else {
      push([{ text: ` ${lead}${middleCells(why.text, room)}`, fg }]);
      if (why.tail !== undefined) push([{ text: ` ${middleCells(why.tail, inner - 1)}`, fg }]);
    }
  }
  return out;
}

/** A card's lines from its head and tail: on the selection colour when selected, each naming its row. */
export function cardLines(row: BoardRow, selected: boolean, parts: readonly Segment[][]): Line[] {
  const key = rowKey(row);
  return parts.map((segments) => ({
    segments: selected ? segments.map((s) => (s.bg ? s : { ...s, bg: 'surface0' as Role })) : segments,
    row: key,
  }));
}
