// The one-line fleet summary for the tab row: `local 11/12 ▲ · netcup 3/16 · momokaya-2 ?`.

import type { HostView } from '../../service/actions/status.js';
import { type GlanceFacts, glance } from '../../service/core/placement/host-marks.js';

export function glanceOf(host: HostView): GlanceFacts {
  return { ...host, eligible: host.headroom.eligible };
}

export function renderStatusLine(hosts: readonly HostView[]): string {
  return hosts.map((host) => glance(glanceOf(host))).join(' · ');
}
