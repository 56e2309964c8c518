// The records that cross hosts for an owner elsewhere: outbox.json (what children here have for
// owners on other hosts), this host's identity, notices.json, and branches.json (what the service
// last saw of its children's branches). The core owns them; outbox-schemas.ts and
// records/branch-observations.ts check their schemas against them.

import type { InboxRecord } from './inbox-types.js';

/** A branch as this host's service last saw it, for the owner's TO LAND. */
export type BranchSeen = { ahead: number; dirty: boolean; landed: boolean; observed_ms: number };

export type OutboxRecord = {
  id: string;
  /** The owner's host identity (its identity.json): only that host's service claims the record. */
  owner_host: string;
  /** The owner's item (the same id on both hosts). */
  item: string;
  /** Posted once per ref: `reply:<item>`, `blocked:<item>:<since>`, `closed:<item>`, `branch:<item>:…`. */
  ref: string;
  created_ms: number;
  attempts: number;
  /** While claimed: when the lease ends and the record is offered again. */
  lease_until_ms: number | null;
  /** A message for the owner's pane: the inbox record to write there (its ref dedupes it). */
  message?: { owner_pane: string; record: InboxRecord } | null;
  /** The child's item closed here: the owner's item closes with this reason and reply. */
  closed?: { reason: string; reply: string | null } | null;
  /** What this host's service saw of the child's branch. */
  branch?: BranchSeen | null;
};

export type Outbox = { version: 1; records: OutboxRecord[] };

/** identity.json: this host's identity as an owner, made once and never changed. */
export type Identity = { version: 1; id: string; created_ms: number };

/** notices.json: the peers a sender here messaged, each until when this host takes what waits there. */
export type Notices = { version: 1; peers: { host: string; until_ms: number }[] };

/** One child's branch in branches.json. */
export type BranchObservationRecord = {
  item: string;
  child: string;
  host: string;
  repository: string;
  branch: string;
  /** Commits the default branch (or, after a good fetch, a remote-tracking ref) does not hold. */
  ahead: number;
  dirty: boolean;
  /** Integrated into the default branch, or deleted: nothing to land. */
  landed: boolean;
  observed_ms: number;
};

export type BranchObservations = { version: 1; branches: BranchObservationRecord[] };
