// The lean `items --json` (cli/hot/items-lean.ts): items.json and queue.json read once each and
// checked whole by hand (state/records/work-glance.ts), filtered as readOwnedWork (items.ts) filters
// them; undefined when either file is in doubt, and the full reader answers (and quarantines).

import { type OwnedWork, ownedWork } from '../core/placement/owned-work.js';
import type { StateIO } from '../state/io.js';
import { glanceWorkRecords } from '../state/records/work-glance.js';

export function glanceOwnedWork(io: StateIO, owner?: string): OwnedWork | undefined {
  // An empty --owner is the full reader's to refuse.
  if (owner === '') return undefined;
  const work = glanceWorkRecords(io);
  return work === undefined ? undefined : ownedWork(work.items, work.tickets, owner);
}
