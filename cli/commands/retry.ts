// `dogsled retry HOST [--json]`: reads an unreachable (or any) peer again now (service/actions/retry.ts)
// and says how it answered; a peer that still cannot be read is one line and exit 2.

import { retryPeer } from '../../service/actions/retry.js';
import { formatAge } from '../../service/core/common/duration.js';
import { DogsledError } from '../../service/core/common/errors.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export interface RetryFlags {
  json?: boolean;
}

export async function retryCommand(ref: string, flags: RetryFlags, ctx: CliContext): Promise<number> {
  const host = await retryPeer(await hostIO(ctx), ref);
  if (flags.json) ctx.out(`${JSON.stringify(host)}\n`);
  if (!host.reachable) {
    const retry = host.retry_ms === null ? '' : ` (next read in ${formatAge(host.retry_ms)})`;
    throw new DogsledError(`${host.label}: unreachable: ${host.unreachable ?? 'not read'}${retry}`);
  }
  if (!flags.json) {
    const age = host.age_ms === null ? 'no snapshot' : `sampled ${formatAge(host.age_ms)} ago`;
    ctx.out(`${host.label}: reachable · service ${host.service} · ${age}\n`);
  }
  return 0;
}
