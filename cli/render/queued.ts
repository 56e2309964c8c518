// Why a request became a ticket, in one line for stderr: the earlier tickets it waits behind, or each
// host's refusal. Shared by `place`, `run` and `agent`, which queue alike; the words are the board's
// too (service/core/queued-why.ts).

import { queuedWhy } from '../../service/core/queued-why.js';
import type { Queued } from '../../service/work/submit.js';

export function whyQueued(queued: Pick<Queued, 'behind' | 'refusals'>): string {
  return queuedWhy(queued.behind, queued.refusals);
}
