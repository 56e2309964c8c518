// Each owner's board on the page: the rows the board rule made (core/board/board-rule.ts, the same
// document `dogsled board --json` prints), TO LAND, ATTENTION, RUNNING and WAITING open, DONE
// folded. A running job row has Stop and an open child Close: buttons the page's script confirms
// and sends to the same actions `dogsled stop` and `dogsled close` call. Pure.

import type { Board, BoardRow } from '../../service/actions/dash.js';
import { ago } from './fleet-view.js';
import { type Html, html } from './html.js';

const OPEN_GROUPS = new Set(['to_land', 'attention', 'running', 'waiting']);

/** The row's action: Stop a running job, Close an open child; nothing else has one. */
export function rowAction(row: BoardRow): Html {
  if (row.kind === 'job' && row.job !== null && (row.state === 'running' || row.state === 'starting')) {
    return html`<button type="button" class="stop" data-action="stop" data-ref="${row.job}" data-what="${row.title}">Stop</button>`;
  }
  const open = row.group === 'running' || row.group === 'attention';
  if (row.kind === 'agent' && row.pane !== null && row.item !== null && open) {
    return html`<button type="button" class="close" data-action="close" data-pane="${row.pane}" data-host="${row.host ?? ''}" data-what="${row.title}">Close</button>`;
  }
  return html``;
}

function boardRow(row: BoardRow, now: number): Html {
  const tone = row.group === 'attention' ? 'warn' : row.group === 'running' ? 'ok' : 'plain';
  return html`<li class="row" data-kind="${row.kind}" data-id="${row.id}" data-group="${row.group}">
<span class="pill ${tone}">${row.state}</span>
<span class="title">${row.title}</span>
${row.detail ? html`<span class="detail">${row.detail}</span>` : ''}
${row.host ? html`<span class="where">on ${row.host}</span>` : ''}
<span class="age">${ago(row.since_ms, now)}</span>
${row.place !== null ? html`<span class="place">#${row.place} in line</span>` : ''}
${row.receipt ? html`<span class="receipt">${row.receipt}</span>` : ''}
${row.reason ? html`<span class="reason">${row.reason}</span>` : ''}
${rowAction(row)}
</li>`;
}

function boardCard(board: Board, now: number): Html {
  const open = board.groups.filter((group) => OPEN_GROUPS.has(group.id));
  const done = board.groups.find((group) => group.id === 'done');
  return html`<article class="board" data-owner="${board.owner}">
<h3>owner ${board.owner}</h3>
${open.map(
  (group) => html`<section class="group" data-group="${group.id}">
<h4>${group.title} <small>${group.rows.length}</small></h4>
${group.rows.length === 0 ? html`<p class="empty">none</p>` : html`<ul>${group.rows.map((row) => boardRow(row, now))}</ul>`}
</section>`,
)}
${
  done && done.rows.length > 0
    ? html`<details class="group" data-group="done"><summary>${done.title} <small>${done.rows.length}</small></summary>
<ul>${done.rows.map((row) => boardRow(row, now))}</ul></details>`
    : ''
}
</article>`;
}

export function boardsSection(boards: readonly Board[], now: number): Html {
  if (boards.length === 0) return html`<p class="empty">No owner has work here.</p>`;
  return html`<div class="boards">${boards.map((board) => boardCard(board, now))}</div>`;
}
