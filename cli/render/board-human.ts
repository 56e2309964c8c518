// `dogsled board` for people: a count line, then each non-empty group with one line per row (and a
// line under it with an agent's harness and model, and one with the reason for ATTENTION and TO
// LAND), within 80 columns. DONE is history that needs nothing (and rows the owner dismissed), so it
// is one count line. Every text in a row is already escape-free (core/board.ts).

import type { Dismissed } from '../../service/actions/board.js';
import { type Board, type BoardRow, GROUP_TITLES } from '../../service/core/board/board-rule.js';
import { formatAge } from '../../service/core/common/duration.js';
import { clip, plainLine } from '../../service/core/text/clean.js';
import type { Paint } from './color.js';

/** "ticket " and a 14-character id: ids are shown whole, for copying into stop or cancel. */
const ID_WIDTH = 22;
const STATE_WIDTH = 12;
const WHERE_WIDTH = 14;
const WIDTH = 80;

export function renderBoard(board: Board, paint: Paint): string[] {
  const counts = board.groups
    .filter((group) => group.rows.length > 0)
    .map((group) => `${group.rows.length} ${GROUP_TITLES[group.id].toLowerCase()}`);
  const lines = [
    `board of ${clip(plainLine(board.owner), 40)}${counts.length > 0 ? ` · ${counts.join(' · ')}` : ' · nothing'}`,
  ];
  for (const group of board.groups) {
    if (group.rows.length === 0) continue;
    if (group.id === 'done') {
      const seen = group.rows.filter((row) => row.seen_ms !== null).length;
      const well = group.rows.length - seen;
      const parts = [well > 0 ? `${well} ended well` : null, seen > 0 ? `${seen} seen` : null];
      lines.push(paint.dim(`DONE  ${parts.filter(Boolean).join(', ')} (dogsled ps --all)`));
      continue;
    }
    lines.push(paint.bold(group.title));
    for (const row of group.rows) lines.push(...rowLines(row, paint));
  }
  return lines;
}

function rowLines(row: BoardRow, paint: Paint): string[] {
  const id = `${row.kind} ${row.id}`.padEnd(ID_WIDTH);
  const state = stateText(row).padEnd(STATE_WIDTH);
  const age = (row.age_ms === null ? '' : formatAge(row.age_ms)).padStart(6);
  const where = [row.host, row.pane].filter(Boolean).join(' ').padEnd(WHERE_WIDTH);
  const head = `  ${clip(id, ID_WIDTH)} ${clip(state, STATE_WIDTH)} ${age}  ${clip(where, WHERE_WIDTH)} `;
  const title = clip(row.title, Math.max(8, WIDTH - head.length));
  const colour =
    row.group === 'attention' ? paint.red : row.group === 'to_land' ? paint.yellow : (t: string) => t;
  const lines = [`${colour(head)}${title}`];
  // An agent row names its harness and model (spec: the board); a job's title is its command already.
  const harness = row.kind === 'agent' && row.group !== 'to_land' ? row.detail : null;
  const why = row.group === 'attention' || row.group === 'to_land' ? row.reason : null;
  for (const text of [harness, why]) {
    if (text !== null) lines.push(`  ${' '.repeat(ID_WIDTH)} ${clip(text, WIDTH - ID_WIDTH - 3)}`);
  }
  return lines;
}

/** `board --dismiss`: what was marked seen, or that it was already. */
export function dismissedText(done: Dismissed): string {
  const what = `${done.kind} ${done.id} (${plainLine(done.state)}, ${clip(plainLine(done.title), 40)})`;
  return done.already
    ? `${what} was seen already: it is in DONE on the board of ${plainLine(done.owner)}`
    : `${what} seen: moved to DONE on the board of ${plainLine(done.owner)}`;
}

function stateText(row: BoardRow): string {
  return row.place !== null ? `${row.state} #${row.place}` : row.state;
}
