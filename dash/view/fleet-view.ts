// The page's fleet: one card per host (this one first), with whether it takes work and why not (the
// headroom reasons `status` lists), what it measures now, its busy and memory over the last hour and
// the last day, and the jobs it runs. Every value from a snapshot is text to html(). Pure.

import type { DashHost } from '../../service/actions/dash.js';
import { commandTitle } from '../../service/core/board/board-rule.js';
import { formatAge } from '../../service/core/common/duration.js';
import { formatBytes, formatCores } from '../../service/core/common/units.js';
import { hostChart } from './charts.js';
import { type Html, html } from './html.js';

/** A host's state in one word, and its pill's class. */
export function hostState(host: DashHost): { word: string; tone: 'ok' | 'warn' | 'down' } {
  if (!host.reachable) return { word: 'unreachable', tone: 'down' };
  if (host.service !== 'up')
    return { word: host.service === 'down' ? 'service down' : 'unknown', tone: 'down' };
  return host.eligible ? { word: 'eligible', tone: 'ok' } : { word: 'not eligible', tone: 'warn' };
}

/** `<time>` the page's script keeps moving: `3m ago` from `now` until then. */
export function ago(ms: number | null, now: number): Html {
  if (ms === null) return html`–`;
  return html`<time data-ms="${ms}" data-kind="ago" datetime="${new Date(ms).toISOString()}">${formatAge(now - ms)} ago</time>`;
}

function measures(host: DashHost): Html[] {
  const probe = host.probe;
  if (probe === null) return [html`no snapshot yet`];
  const used = probe.memory.total_bytes - probe.memory.free_bytes;
  const busy =
    probe.busy === null
      ? 'busy not sampled yet'
      : `${formatCores(probe.busy * probe.cores)} of ${probe.cores} cores busy`;
  return [
    html`${busy} · load ${probe.load1.toFixed(2)}`,
    html`memory ${formatBytes(used)} used of ${formatBytes(probe.memory.total_bytes)}`,
    html`disk ${formatBytes(probe.disk.free_bytes)} free of ${formatBytes(probe.disk.total_bytes)}`,
    html`headroom ${host.free_cores === null ? '–' : `${formatCores(host.free_cores)} free cores`} · ${host.reservations} reserved · ${host.agents.length} agents`,
  ];
}

/** Why the host takes no work now: unreachable, its service, or each headroom reason. */
export function ineligibleWhy(host: DashHost): string[] {
  if (!host.reachable) return [host.unreachable ? `unreachable: ${host.unreachable}` : 'not read yet'];
  if (host.eligible) return [];
  return host.reason.length > 0 ? host.reason : ['not eligible'];
}

function hostCard(host: DashHost, now: number): Html {
  const state = hostState(host);
  const why = ineligibleWhy(host);
  const running = host.jobs.filter((job) => job.ended_ms === null);
  const source =
    host.points_from === 'page'
      ? html`<p class="note">A peer's samples stay on the peer: its charts start when this page did.</p>`
      : html``;
  return html`<article class="host" data-host="${host.id}">
<header><h3>${host.label}${host.local ? html` <small>this host</small>` : ''}</h3>
<span class="pill ${state.tone}">${state.word}</span>
<span class="age">sampled ${ago(host.age_ms === null ? null : now - host.age_ms, now)}</span></header>
<ul class="measures">${measures(host).map((line) => html`<li>${line}</li>`)}</ul>
${why.length > 0 ? html`<ul class="why">${why.map((reason) => html`<li>${reason}</li>`)}</ul>` : ''}
<div class="charts">${hostChart(host.points, 'hour', now)}${hostChart(host.points, 'day', now)}</div>
${source}
${
  running.length > 0
    ? html`<ul class="jobs">${running.map(
        (job) =>
          html`<li data-job="${job.id}"><code>${job.id}</code> ${commandTitle(job.command)} <span class="age">running ${ago(job.started_ms, now)}</span></li>`,
      )}</ul>`
    : ''
}
</article>`;
}

export function fleetSection(hosts: readonly DashHost[], now: number): Html {
  if (hosts.length === 0)
    return html`<p class="empty">No host is known here yet: is <code>dogsled serve</code> running?</p>`;
  return html`<div class="hosts">${hosts.map((host) => hostCard(host, now))}</div>`;
}
