// The page as sections: each is drawn from the dash's read (service/actions/dash.ts) and replaced
// whole when it changes (the server sends only the sections whose markup changed). The body holds
// every section once, in the order a reader scans: the fleet, each owner's work, budgets, receipts,
// history. Pure.

import type { DashState } from '../../service/actions/dash.js';
import { boardsSection } from './board-view.js';
import { fleetSection } from './fleet-view.js';
import { budgetSection, historySection, receiptsSection, SEARCH_MAX } from './history-view.js';
import { type Html, html, markup } from './html.js';

export const SECTION_IDS = ['problems', 'fleet', 'boards', 'budget', 'receipts', 'history-body'] as const;
export type SectionId = (typeof SECTION_IDS)[number];

function problemsSection(problems: readonly string[]): Html {
  if (problems.length === 0) return html``;
  return html`<ul class="problems" role="alert">${problems.slice(0, 20).map((line) => html`<li>${line}</li>`)}</ul>`;
}

export type Sections = Record<SectionId, Html>;

/** Every section for a reader whose history search is `search`. */
export function renderSections(state: DashState, search: string): Sections {
  const now = state.now_ms;
  return {
    problems: problemsSection(state.problems),
    fleet: fleetSection(state.hosts, now),
    boards: boardsSection(state.boards, now),
    budget: budgetSection(state.budget, state.budget_active),
    receipts: receiptsSection(state.receipts, state.prices_as_of, now),
    'history-body': historySection(state.history, search, now),
  };
}

/** The sections as the strings an update carries. */
export function sectionMarkup(sections: Sections): Record<SectionId, string> {
  return Object.fromEntries(SECTION_IDS.map((id) => [id, markup(sections[id])])) as Record<SectionId, string>;
}

/** The page's body around the sections. */
export function pageBody(sections: Sections, search: string, now: number): Html {
  const part = (id: SectionId) => html`<div id="${id}" class="section-body">${sections[id]}</div>`;
  return html`<header class="top"><h1>dogsled</h1>
<span id="live" class="pill plain" data-now="${now}">connecting</span>
<span id="notice" role="status" aria-live="polite"></span></header>
<main>
${part('problems')}
<section aria-labelledby="h-fleet"><h2 id="h-fleet">Fleet</h2>${part('fleet')}</section>
<section aria-labelledby="h-work"><h2 id="h-work">Work</h2>${part('boards')}</section>
<section aria-labelledby="h-budget"><h2 id="h-budget">Budgets</h2>${part('budget')}</section>
<section aria-labelledby="h-receipts"><h2 id="h-receipts">Receipts</h2>${part('receipts')}</section>
<section aria-labelledby="h-history"><h2 id="h-history">History</h2>
<form id="search" role="search"><label>search <input type="search" name="q" value="${search.slice(0, SEARCH_MAX)}" maxlength="${SEARCH_MAX}" autocomplete="off" placeholder="name, task, branch, model, harness, outcome"></label></form>
${part('history-body')}</section>
</main>
<footer>Read-only, but for Stop (a job) and Close (a child), each confirmed. It follows the state files as they change.</footer>`;
}
