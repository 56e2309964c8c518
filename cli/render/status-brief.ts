// `status --brief`: at most six lines for prompt hooks. One line per host while they fit; larger
// fleets share lines so every host stays visible, and the last line counts stalled panes, open
// items and pending tickets (each only when there are some) and points to `dogsled status`.

import type { HostView } from '../../service/actions/status.js';
import { stalledPanes } from '../../service/core/agents/agent-pane-clocks.js';
import { type SweepCounted, sweepCounts } from '../../service/core/cleanup/sweep-rule.js';
import { formatBytes } from '../../service/core/common/units.js';
import { glance } from '../../service/core/placement/host-marks.js';
import { glanceOf } from './status-line.js';

export const BRIEF_MAX_LINES = 6;

export function briefHost(host: HostView): string {
  const head = glance(glanceOf(host));
  const probe = host.probe;
  if (!probe) return `${head} (no snapshot)`;
  const diskPercent = probe.disk.total_bytes > 0 ? (100 * probe.disk.free_bytes) / probe.disk.total_bytes : 0;
  return [
    head,
    `mem ${formatBytes(probe.memory.free_bytes)} free of ${formatBytes(probe.memory.total_bytes)}`,
    `disk ${Math.round(diskPercent)}% free`,
    agentsText(host),
  ].join(' · ');
}

function agentsText(host: HostView): string {
  const stalled = stalledPanes(host.probe?.agent_panes ?? []).length;
  const text = `agents ${host.headroom.live_agents} live, ${host.headroom.active_agents} active`;
  return stalled > 0 ? `${text}, ${stalled} stalled` : text;
}

export interface WorkCounts {
  openItems: number;
  pendingTickets: number;
  /** Orphaned children the service keeps open on this host (core/orphans.ts). */
  orphaned?: number;
  /** The latest cleanup pass: counted when it failed, warned or holds something. */
  sweep?: SweepCounted | null;
}

/** `cleanup 1 failed, 2 warnings`, or '' when the latest pass has nothing to say. */
export function sweepHint(pass: SweepCounted | null | undefined): string {
  if (!pass) return '';
  const counts = sweepCounts(pass);
  const parts = [
    counts.failed > 0 ? `${counts.failed} failed` : '',
    counts.warnings > 0 ? plural(counts.warnings, 'warning') : '',
    counts.held > 0 ? `${counts.held} held` : '',
  ].filter(Boolean);
  return parts.length === 0 ? '' : `cleanup ${parts.join(', ')}`;
}

export function renderBrief(hosts: readonly HostView[], work?: WorkCounts): string[] {
  const stalled = hosts.reduce((sum, host) => sum + stalledPanes(host.probe?.agent_panes ?? []).length, 0);
  const counts = [
    stalled > 0 ? `${stalled} stalled` : '',
    work && work.openItems > 0 ? plural(work.openItems, 'open item') : '',
    work && work.pendingTickets > 0 ? plural(work.pendingTickets, 'pending ticket') : '',
    work?.orphaned ? `${work.orphaned} orphaned` : '',
    sweepHint(work?.sweep),
  ].filter(Boolean);
  const hint = [...counts, 'details: dogsled status'].join(' · ');
  const rows = hosts.map(briefHost);
  const room = BRIEF_MAX_LINES - 1;
  if (rows.length <= room) return [...rows, hint];
  const perLine = Math.ceil(rows.length / room);
  const lines: string[] = [];
  for (let i = 0; i < rows.length; i += perLine) {
    lines.push(
      hosts
        .slice(i, i + perLine)
        .map((h) => glance(glanceOf(h)))
        .join(' · '),
    );
  }
  return [...lines, hint];
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}
