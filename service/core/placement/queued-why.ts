// Why a ticket waits, in the words `run`, `agent` and `place` print when they queue and the board
// shows beside a WAITING row: the earlier tickets it waits behind, or each host's refusal (the
// headroom reasons `status` lists under `not eligible`).

import type { Refusal } from './placement.js';

export function queuedWhy(
  behind: number,
  refusals: ReadonlyArray<Pick<Refusal, 'label' | 'reason'>>,
): string {
  if (behind > 0) {
    return `${behind} earlier ticket${behind === 1 ? '' : 's'} wait${behind === 1 ? 's' : ''} for the same host`;
  }
  const why = refusals.map((r) => `${r.label}: ${r.reason.join('; ')}`).join(' | ');
  return `no host has room (${why})`;
}
