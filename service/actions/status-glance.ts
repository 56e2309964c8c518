// The lean `status --line` and `--brief` (hosts/local-glance.ts): this host alone with its service
// up, and for the brief its work counted from items.json, queue.json and sweep.json read by hand
// (state/records/work-glance.ts). undefined sends the caller to readHosts/readStatus (status.ts),
// which answer every other case. The lean `status --json` is status-json-glance.ts's.

import type { SweepCounted } from '../core/cleanup/sweep-rule.js';
import { type WorkCounts, workCounts } from '../core/placement/work-counts.js';
import { glanceLocalHost } from '../hosts/local-glance.js';
import type { HostView } from '../hosts/view.js';
import type { HostIO } from '../state/io.js';
import { glanceWork } from '../state/records/work-glance.js';

export async function glanceHosts(io: HostIO): Promise<HostView[] | undefined> {
  const local = await glanceLocalHost(io).catch(() => undefined);
  return local === undefined ? undefined : [local];
}

/** The brief's hosts and counts, as status.ts reads them, or undefined when the full path must. */
export async function glanceBrief(
  io: HostIO,
): Promise<{ hosts: HostView[]; counts: WorkCounts & { sweep: SweepCounted | null } } | undefined> {
  const hosts = await glanceHosts(io);
  const work = hosts === undefined ? undefined : glanceWork(io);
  if (hosts === undefined || work === undefined) return undefined;
  return { hosts, counts: { ...workCounts(work.items, work.tickets), sweep: work.sweep } };
}
