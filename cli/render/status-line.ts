// The one-line fleet summary for the tab row: `local 11/12 ▲ · netcup 3/16 · momokaya-2 ?`.
// Busy cores over cores; `load N/cores` before the first CPU sample; ▲ when a host takes no work,
// ? when its service is down or unreachable or it has never published.

import type { HostView } from '../../service/hosts/view.js';

export const NOT_ELIGIBLE = '▲';
export const UNAVAILABLE = '?';

export function hostLineNumbers(host: HostView): string | null {
  const probe = host.probe;
  if (!probe) return null;
  if (probe.busy === null) return `load ${probe.load1.toFixed(1)}/${probe.cores}`;
  return `${Math.round(probe.busy * probe.cores)}/${probe.cores}`;
}

/** The marker after a host's numbers, or null when it is available and eligible. */
export function hostMarker(host: HostView): string | null {
  if (!host.probe || !host.reachable || host.service === 'down') return UNAVAILABLE;
  if (!host.headroom.eligible) return NOT_ELIGIBLE;
  return null;
}

export function renderStatusLine(hosts: readonly HostView[]): string {
  return hosts
    .map((host) =>
      [host.label, hostLineNumbers(host), hostMarker(host)].filter((part) => part !== null).join(' '),
    )
    .join(' · ');
}
