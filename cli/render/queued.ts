// Why a request became a ticket, in one line for stderr: the earlier tickets it waits behind, or each
// host's refusal. Shared by `place`, `run` and `agent`, which queue alike.

import type { Queued } from '../../service/work/submit.js';

export function whyQueued(queued: Pick<Queued, 'behind' | 'refusals'>): string {
  const { behind } = queued;
  if (behind > 0) {
    return `${behind} earlier ticket${behind === 1 ? '' : 's'} wait${behind === 1 ? 's' : ''} for the same host`;
  }
  const why = queued.refusals.map((r) => `${r.label}: ${r.reason.join('; ')}`).join(' | ');
  return `no host has room (${why})`;
}
