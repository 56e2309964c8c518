// Work whose remote half has not landed yet (agents, `--branch` worktrees) starts on this host: a pin
// to a peer is refused before anything exists, and placement is pinned here rather than ranked across
// the fleet, so nothing is reserved on a peer that this host would then start locally.

import { findHost } from '../core/placement.js';
import { DogsledError } from '../errors.js';
import { LOCAL_HOST } from '../hosts/local.js';

export function pinnedHere(pin: string | null, what: string): string {
  if (pin !== null && findHost([LOCAL_HOST], pin) === undefined) {
    throw new DogsledError(`--host ${pin}: ${what} on a peer is not in this build yet; run it on that host`);
  }
  return LOCAL_HOST.id;
}
