// What a row says first and why: the action a board row asks of its owner ("+1 to land", "exit 3",
// "blocked", "#2 queued"), why a WAITING ticket waits (in the words `run` prints when it queues, from
// the hosts the sidebar reads) and why a host takes no work (the headroom reasons of `status`).
// Pure: the cards (work.ts), the hosts panel (hosts.ts) and the host detail view read them.

import type { BoardRow } from '../../service/core/board/board-rule.js';
import { queuedWhy } from '../../service/core/placement/queued-why.js';
import { displayText } from './cells.js';
import type { SidebarHost } from './types.js';

/** A TO LAND reason ends `… +2 to land`, `… dirty to land` or `… +2 dirty to land` (core/board.ts). */
const TO_LAND_TAIL = /((?:\+\d+ )?(?:dirty )?to land)$/;
/** What core/board.ts puts in a pinned ticket's detail. */
const PINNED = 'pinned to ';

/** The pill: what the owner must do, or the state a row is in, first. */
export function rowAction(row: BoardRow): string {
  if (row.group === 'to_land') {
    const tail = TO_LAND_TAIL.exec(row.reason ?? '');
    return tail?.[1] ?? (displayText(row.state) || 'to land');
  }
  const state = displayText(row.state) || row.kind;
  return row.place !== null ? `#${row.place} ${state}` : state;
}

/**
 * The reason line of a row: why it needs the owner, why it waits, else what it is (an agent's harness
 * and model, a job's directory). `long` is true for a reason, which is wrapped whole; a description
 * (false) may be shortened from the middle, never its `lead` or `tail`.
 */
export function rowWhy(
  row: BoardRow,
  hosts: readonly SidebarHost[],
): { text: string; long: boolean; lead?: string; tail?: string } | null {
  if (row.group === 'to_land' && row.detail) {
    // `branch <name>`: the word stays whole, the name is what may be shortened; the receipt stays
    // whole beside it, or on a line of its own when both do not fit.
    const tail = row.receipt ? { tail: displayText(row.receipt) } : {};
    const detail = displayText(row.detail);
    return detail.startsWith('branch ')
      ? { lead: 'branch ', text: detail.slice('branch '.length), long: false, ...tail }
      : { text: detail, long: false, ...tail };
  }
  if (row.group === 'to_land') return null;
  if (row.group === 'waiting') {
    const why = waitingWhy(row, hosts);
    if (why) return { text: why, long: true };
  }
  if (row.reason) return { text: displayText(row.reason), long: true };
  // A finished child: what it cost first, since its harness and model may be cut from the middle.
  if (row.receipt)
    return {
      text: [row.receipt, row.detail]
        .filter(Boolean)
        .map((t) => displayText(t as string))
        .join(' · '),
      long: false,
    };
  if (row.detail) return { text: displayText(row.detail), long: false };
  return null;
}

/**
 * Why a WAITING ticket waits: its quota hold (the board's reason), no service to admit it, each host's
 * refusal when none has room, else the earlier tickets ahead of it.
 */
export function waitingWhy(row: BoardRow, hosts: readonly SidebarHost[]): string | null {
  if (row.reason) return displayText(row.reason);
  if (row.kind !== 'ticket' || row.state !== 'queued') return null;
  const pin = row.detail?.startsWith(PINNED) ? row.detail.slice(PINNED.length) : null;
  const pool = pin === null ? hosts : hosts.filter((h) => h.id === pin || h.label === pin);
  if (pool.length === 0) return pin === null ? null : `no host named ${displayText(pin)} is known here`;
  if (!hosts.some((h) => h.local && h.service === 'up')) {
    return 'no service admits it here: run `dogsled serve`';
  }
  const open = pool.filter((h) => h.eligible);
  if (open.length === 0) {
    const refusals = pool.map((h) => ({ label: displayText(h.label), reason: h.reason.map(displayText) }));
    return queuedWhy(0, refusals);
  }
  const behind = (row.place ?? 1) - 1;
  if (behind > 0) return queuedWhy(behind, []);
  return `${displayText((open[0] as SidebarHost).label)} has room: admitted at the service's next pass`;
}

/** Why a host shows `▲` (not eligible) or `?` (down, unreachable, no snapshot); null when neither. */
export function hostWhy(host: SidebarHost): string | null {
  if (!host.reachable) {
    return host.unreachable ? `unreachable: ${displayText(host.unreachable)}` : 'not read yet';
  }
  if (host.eligible) return null;
  return host.reason.length > 0 ? displayText(host.reason[0] as string) : 'not eligible';
}
