// `dogsled status` for people: one block per host, aligned, within 80 columns. Reads a report
// object only, the same one `--json` prints.

import type { HostView, StatusReport } from '../../service/actions/status.js';
import { stalledPanes } from '../../service/core/agents/agent-pane-clocks.js';
import { formatAge } from '../../service/core/common/duration.js';
import { formatBytes, formatCores } from '../../service/core/common/units.js';
import { factsLine } from '../../service/core/fleet/facts-line.js';
import { NOT_ELIGIBLE, UNAVAILABLE } from '../../service/core/placement/host-marks.js';
import { clip, clipStart } from '../../service/core/text/clean.js';
import { renderAgentPanes } from './agent-pane-lines.js';
import type { Paint } from './color.js';

const SHOWN_RESERVATIONS = 3;
const WIDTH = 80;

export function renderStatus(report: StatusReport, paint: Paint): string[] {
  const lines: string[] = [];
  for (const host of report.hosts) {
    if (lines.length > 0) lines.push('');
    lines.push(...renderHost(host, report.now_ms, paint));
  }
  return lines;
}

function row(name: string, text: string): string {
  return `  ${name.padEnd(9)} ${text}`;
}

function renderHost(host: HostView, now: number, paint: Paint): string[] {
  const service = host.service === 'up' ? paint.green('service up') : paint.red(`service ${host.service}`);
  const age = host.age_ms === null ? 'no snapshot' : `sampled ${formatAge(host.age_ms)} ago`;
  const title = `${paint.bold(host.label)}  ${host.hostname ?? ''}`.trimEnd();
  const lines = [`${title}  ·  ${host.reachable ? service : unreachableText(host, paint)} · ${age}`];
  // What the host is, one line, cut to the width (a GPU list can be long).
  if (host.facts) lines.push(row('system', clip(factsLine(host.facts), WIDTH - 12)));
  const probe = host.probe;
  if (!probe) {
    const hint = host.local
      ? 'run `dogsled serve` on this host to publish a snapshot'
      : host.reachable
        ? 'run `dogsled serve` on that host to publish a snapshot'
        : `no snapshot read from this peer yet (dogsled retry ${host.id})`;
    lines.push(row('', `${UNAVAILABLE} ${hint}`));
    return lines;
  }
  const cpu =
    probe.busy === null
      ? `no sample yet of ${probe.cores} cores · load ${probe.load1.toFixed(2)}`
      : `${formatCores(probe.busy * probe.cores)} of ${probe.cores} cores busy · load ${probe.load1.toFixed(2)}`;
  lines.push(row('cpu', cpu));
  const scope = probe.memory.scope === 'cgroup' ? ` (cgroup ${probe.memory.cgroup ?? ''})`.trimEnd() : '';
  lines.push(
    row(
      'memory',
      `${formatBytes(probe.memory.used_bytes)} used of ${formatBytes(probe.memory.total_bytes)} · ` +
        `${formatBytes(probe.memory.free_bytes)} free${scope}`,
    ),
  );
  const diskPercent = probe.disk.total_bytes > 0 ? (100 * probe.disk.free_bytes) / probe.disk.total_bytes : 0;
  const diskSize =
    `${formatBytes(probe.disk.free_bytes)} free of ${formatBytes(probe.disk.total_bytes)} ` +
    `(${Math.round(diskPercent)}%) · `;
  // The path's end names the disk's place best (a long home or state dir would pass the width).
  lines.push(row('disk', diskSize + clipStart(probe.disk.path, Math.max(8, WIDTH - 12 - diskSize.length))));
  if (probe.pressure_level !== null) lines.push(row('pressure', pressureName(probe.pressure_level)));
  // Before the agents line, whose pane rows follow it directly.
  if (probe.terminal) lines.push(row('terminal', terminalName(probe.terminal.kind)));
  const panes = probe.agent_panes ?? [];
  const stalled = stalledPanes(panes).length;
  const counts = `${host.headroom.live_agents} live · ${host.headroom.active_agents} active`;
  lines.push(row('agents', stalled > 0 ? `${counts} · ${paint.red(`${stalled} stalled`)}` : counts));
  lines.push(...renderAgentPanes(panes, now, paint));
  const free = host.headroom.free_cores === null ? '?' : formatCores(host.headroom.free_cores);
  const verdict = host.headroom.eligible
    ? paint.green('eligible')
    : paint.yellow(`${NOT_ELIGIBLE} not eligible`);
  lines.push(row('headroom', `${free} free cores · ${verdict}`));
  for (const reason of host.headroom.reason) lines.push(row('', `- ${reason}`));
  if (host.reservations.length > 0) {
    const shown = host.reservations
      .slice(0, SHOWN_RESERVATIONS)
      .map((r) => `${r.id} (${formatAge(r.expires_ms - now)} left)`);
    const more = host.reservations.length - SHOWN_RESERVATIONS;
    lines.push(row('reserved', shown.join(' · ') + (more > 0 ? ` · +${more} more` : '')));
  }
  for (const error of host.errors) lines.push(row('error', paint.red(error)));
  return lines;
}

/** `unreachable: timeout · retry in 40s` (or `not read yet`). */
function unreachableText(host: HostView, paint: Paint): string {
  const what = host.unreachable === null ? 'not read yet' : `unreachable: ${host.unreachable}`;
  const retry = host.retry_ms === null ? '' : ` · retry in ${formatAge(host.retry_ms)}`;
  return paint.red(`${UNAVAILABLE} ${what}`) + retry;
}

function pressureName(level: number): string {
  if (level >= 4) return 'critical';
  if (level >= 2) return 'warn';
  return 'normal';
}

/** How status names the backend the service reads agents through. */
function terminalName(kind: string): string {
  if (kind === 'herdr-socket') return 'herdr (socket)';
  if (kind === 'herdr-cli') return 'herdr (cli)';
  if (kind === 'headless') return 'none (headless)';
  return kind;
}
