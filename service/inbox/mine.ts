// The caller's own inbox, as `inbox list|claim|ack` (and later the MCP tool and the Pi extension)
// reach it: the caller's pane is resolved through the terminal port (Herdr, else tmux) to its
// terminal, then the reader functions act on that terminal's file. Outside a pane there is none.

import { DogsledError } from '../core/common/errors.js';
import { clip, plainLine } from '../core/text/clean.js';
import type { ProcessIO } from '../state/io.js';
import { HOOK_HARNESSES } from './hook-common.js';
import { ackDelivery, claimDelivery, type Delivery, type InboxListing, listInbox } from './reader.js';
import { openHerdr, requireCaller, type Whereabouts } from './whereabouts.js';

async function mine(io: ProcessIO, command: string): Promise<Whereabouts> {
  const port = await openHerdr({ env: io.env, home: io.home, commandName: command });
  return requireCaller(port, io.env, command);
}

export async function listMyInbox(io: ProcessIO): Promise<InboxListing> {
  return listInbox(io, await mine(io, 'inbox list'));
}

/** Registers the caller as `harness`'s reader and leases the next batch. */
export async function claimMyInbox(io: ProcessIO, harness: string): Promise<Delivery> {
  if (!(HOOK_HARNESSES as readonly string[]).includes(harness)) {
    throw new DogsledError(
      `inbox claim: --harness must be ${HOOK_HARNESSES.join(', ')}, got "${clip(plainLine(harness), 40)}"`,
    );
  }
  return claimDelivery(io, await mine(io, 'inbox claim'), harness);
}

/** Marks the caller's records `ids` delivered; an unknown or failed id refuses them all. */
export async function ackMyInbox(io: ProcessIO, ids: readonly string[]): Promise<number> {
  return (await ackDelivery(io, await mine(io, 'inbox ack'), ids, true)).acked.length;
}
