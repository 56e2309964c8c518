// Herdr's listing (`session.snapshot`) for a lean command (actions/send-glance.ts): one call over
// the socket Herdr's own resolution names (locate.ts), without node:net where Node's pipe handle
// serves (herdr-socket.ts, quickSocketCall), checked by hand (listing-check.ts), without the
// terminal layer or zod. Anything else (no socket, a refusal, an error reply, a shape in doubt,
// no reply in time) is undefined, and the full command opens the terminal port, which tells a CLI
// fallback, tmux or headless apart.

import type { Listing } from '../port-records.js';
import { expectType } from './envelope.js';
import { quickSocketCall } from './herdr-socket.js';
import { checkedListing } from './listing-check.js';
import { socketCandidate } from './locate.js';

/** This Herdr's listing over its socket, or undefined when the full command must ask. */
export async function glanceListing(
  env: NodeJS.ProcessEnv,
  home: string,
  timeoutMs: number,
): Promise<Listing | undefined> {
  try {
    const { path } = socketCandidate(env, home);
    const reply = await quickSocketCall(path, 'session.snapshot', {}, timeoutMs);
    if (reply === undefined) return undefined;
    return checkedListing(expectType(reply, 'session_snapshot', 'session.snapshot').snapshot);
  } catch {
    return undefined;
  }
}
