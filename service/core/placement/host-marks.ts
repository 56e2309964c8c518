// How a host reads at a glance, shared by `status --line`, `--brief` and the sidebar: busy cores
// over cores (`load N/cores` before the first CPU sample), then ▲ when the host takes no work and
// ? when its service is down, it is unreachable, or it never published.

export const NOT_ELIGIBLE = '▲';
export const UNAVAILABLE = '?';

export interface GlanceFacts {
  label: string;
  reachable: boolean;
  service: 'up' | 'down' | 'unknown';
  eligible: boolean;
  /** null when the host has no snapshot. */
  probe: { cores: number; busy: number | null; load1: number } | null;
}

export function glanceNumbers(host: GlanceFacts): string | null {
  const probe = host.probe;
  if (!probe) return null;
  if (probe.busy === null) return `load ${probe.load1.toFixed(1)}/${probe.cores}`;
  return `${Math.round(probe.busy * probe.cores)}/${probe.cores}`;
}

export function glanceMarker(host: GlanceFacts): string | null {
  if (!host.probe || !host.reachable || host.service === 'down') return UNAVAILABLE;
  if (!host.eligible) return NOT_ELIGIBLE;
  return null;
}

/** `local 11/12 ▲`, `netcup 3/16`, `momokaya-2 ?`. */
export function glance(host: GlanceFacts): string {
  return [host.label, glanceNumbers(host), glanceMarker(host)].filter((part) => part !== null).join(' ');
}
