// History, receipts and budgets on the page. History is `dogsled history` (core/history): the
// entries a search selects (the same case-insensitive match as --search), newest first, and the
// statistics of that selection as `history --stats` sums them; receipts are each finished child's
// tokens by kind, turns, time and estimate with the date of its prices; budgets are the day's spend
// beside each owner's and host's amount. Pure.

import type { BudgetLine, DashReceipt, HistoryEntry } from '../../service/actions/dash.js';
import { formatAge } from '../../service/core/common/duration.js';
import { filterHistory } from '../../service/core/history/history-entry.js';
import { historyStats, type StatsRow } from '../../service/core/history/history-stats.js';
import { receiptText, tokensText, usdText } from '../../service/core/receipts/receipt.js';
import { ago } from './fleet-view.js';
import { type Html, html } from './html.js';

/** Entries listed, newest first; the rest are counted. */
export const HISTORY_SHOWN = 200;
/** What a search may be: longer is cut (a search is one line a person types). */
export const SEARCH_MAX = 200;

function costText(row: StatsRow): string {
  const cost = row.unknown_cost > 0 ? `${usdText(row.usd)}+?` : usdText(row.usd);
  return row.unknown_usage > 0 ? `${cost} (+${row.unknown_usage} unknown)` : cost;
}

function statsTable(title: string, rows: readonly StatsRow[]): Html {
  if (rows.length === 0) return html``;
  return html`<table class="stats"><caption>${title}</caption>
<thead><tr><th scope="col"></th><th scope="col">runs</th><th scope="col">ok</th><th scope="col">time</th><th scope="col">tokens</th><th scope="col">cost</th></tr></thead>
<tbody>${rows.map(
    (row) =>
      html`<tr><th scope="row">${row.key}</th><td>${row.runs}</td><td>${`${Math.round(row.success_rate * 100)}%`}</td><td>${formatAge(row.duration_ms)}</td><td>${tokensText(row.tokens)}</td><td>${costText(row)}</td></tr>`,
  )}</tbody></table>`;
}

function entryRow(entry: HistoryEntry, now: number): Html {
  return html`<tr class="${entry.ok ? 'ok' : 'bad'}" data-id="${entry.id}">
<td>${ago(entry.ended_ms, now)}</td><td>${entry.outcome}</td><td>${formatAge(entry.duration_ms)}</td><td>${entry.host}</td>
<td>${entry.kind === 'agent' ? `${entry.name} (${entry.harness ?? 'agent'})` : entry.name}${
    entry.summary && entry.summary !== entry.name ? html`<br><small>${entry.summary}</small>` : ''
  }</td>
<td>${entry.kind === 'agent' ? receiptText(entry.receipt) : ''}</td></tr>`;
}

/** The history a search selects, newest first, with the statistics of that selection. */
export function historySection(entries: readonly HistoryEntry[], search: string, now: number): Html {
  const needle = search.trim().slice(0, SEARCH_MAX);
  const selected = filterHistory(entries, needle === '' ? {} : { search: needle });
  const stats = historyStats(selected);
  const newest = selected.slice(-HISTORY_SHOWN).reverse();
  const more = selected.length - newest.length;
  if (selected.length === 0) {
    return needle === ''
      ? html`<p class="empty">Nothing has ended here in the last 30 days.</p>`
      : html`<p class="empty">Nothing in history matches “${needle}”.</p>`;
  }
  return html`<div class="stats-grid">
${statsTable(`${selected.length} run${selected.length === 1 ? '' : 's'}${needle === '' ? '' : ` matching “${needle}”`}`, [stats.total])}
${statsTable('per harness', stats.harness)}${statsTable('per model', stats.model)}${statsTable('per host', stats.host)}${statsTable('per day (UTC)', stats.day)}
</div>
<table class="history"><thead><tr><th scope="col">ended</th><th scope="col">outcome</th><th scope="col">took</th><th scope="col">host</th><th scope="col">what</th><th scope="col">receipt</th></tr></thead>
<tbody>${newest.map((entry) => entryRow(entry, now))}</tbody></table>
${more > 0 ? html`<p class="note">${more} older not shown: narrow the search.</p>` : ''}`;
}

function receiptRow(entry: DashReceipt, now: number): Html {
  const r = entry.receipt;
  const known = r !== null && r.tokens !== null;
  const kinds = known
    ? r.models.map(
        (m) =>
          html`<li>${m.model}: ${tokensText(m.input)} in · ${tokensText(m.output)} out · ${tokensText(m.cache_read)} cache read · ${tokensText(m.cache_write)} cache write · ${m.turns} turns${m.usd === null ? ' · no price' : ` · ${usdText(m.usd)}`}</li>`,
      )
    : [];
  return html`<tr data-id="${entry.id}">
<td>${ago(entry.ended_ms, now)}</td><td>${entry.name}<br><small>${entry.harness ?? 'agent'} · ${entry.outcome} · on ${entry.host}</small></td>
<td class="receipt">${receiptText(r)}${r?.prices_as_of ? html`<br><small>at ${r.prices_as_of} prices</small>` : ''}</td>
<td>${r?.turns ?? '–'}</td><td>${r?.wall_ms == null ? '–' : formatAge(r.wall_ms)}</td>
<td>${kinds.length > 0 ? html`<ul class="models">${kinds}</ul>` : ''}</td></tr>`;
}

export function receiptsSection(receipts: readonly DashReceipt[], pricesAsOf: string, now: number): Html {
  if (receipts.length === 0) return html`<p class="empty">No child has finished here yet.</p>`;
  return html`<p class="note">Estimates at the price table's prices (${pricesAsOf} unless a receipt says otherwise); usage a transcript does not record is unknown, never 0.</p>
<table class="receipts"><thead><tr><th scope="col">ended</th><th scope="col">child</th><th scope="col">receipt</th><th scope="col">turns</th><th scope="col">wall</th><th scope="col">per model</th></tr></thead>
<tbody>${receipts.map((entry) => receiptRow(entry, now))}</tbody></table>`;
}

export function budgetSection(lines: readonly BudgetLine[], active: boolean): Html {
  if (lines.length === 0) {
    return active
      ? html`<p class="empty">Nothing spent today.</p>`
      : html`<p class="empty">No budget is set (<code>[budget]</code> in config.toml); nothing spent today.</p>`;
  }
  return html`<table class="budget"><thead><tr><th scope="col"></th><th scope="col">spent today</th><th scope="col">a day</th></tr></thead>
<tbody>${lines.map(
    (line) =>
      html`<tr class="${line.spent_out ? 'bad' : 'ok'}"><th scope="row">${line.kind} ${line.name}</th><td>${usdText(line.spent_usd)}</td><td>${
        line.limit_usd === null ? 'no limit' : usdText(line.limit_usd)
      }${line.spent_out ? html` <span class="pill warn">spent: new children wait</span>` : ''}</td></tr>`,
  )}</tbody></table>`;
}
