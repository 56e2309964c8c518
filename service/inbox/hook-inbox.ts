// `hook inbox` and `hook gate` (spec, "Inbox" readers and the stop gate): register the reader and
// claim the next batch, with the gate's reminder at Stop; or the reminder alone for Pi's settle
// hook. Each returns what to print or nothing; the CLI renders it for the harness and acknowledges
// what it printed. Outside a Herdr pane or without a state directory a hook adds nothing.

import { batchText } from '../core/inbox-text.js';
import { ownPane } from '../terminal/herdr-env.js';
import { mark } from '../timing.js';
import { gateCheck } from './gate.js';
import { type HookHarness, hasStateDir, hookCaller, type InboxHookEvent } from './hook-common.js';
import type { InboxIO } from './io.js';
import { claimDelivery, type Delivery } from './reader.js';

export interface InboxHookOutcome {
  /** What to hand the harness (the batch, then the stop reminder), or undefined: print nothing. */
  text: string | undefined;
  /** What to acknowledge once the text is printed. */
  delivery: Delivery | undefined;
}

const NOTHING: InboxHookOutcome = { text: undefined, delivery: undefined };

/** `hook inbox`: the next batch for this terminal, and at Stop the gate's reminder if one is due. */
export async function inboxHook(
  io: InboxIO,
  harness: HookHarness,
  event: InboxHookEvent,
): Promise<InboxHookOutcome> {
  const owner = ownPane(io.env);
  if (owner === null || !(await hasStateDir(io))) return NOTHING;
  const at = await hookCaller(io, 'hook inbox');
  mark('caller');
  const delivery = await claimDelivery(io, at, harness);
  const reminder = event === 'Stop' ? await gateCheck(io, owner) : undefined;
  const parts: string[] = [];
  if (delivery.records.length > 0) parts.push(batchText(delivery.records, io.now(), delivery.left));
  if (reminder !== undefined) parts.push(reminder);
  return { text: parts.length > 0 ? parts.join('\n\n') : undefined, delivery };
}

/** `hook gate`: the reminder alone, for Pi's settle hook. */
export async function gateHook(io: InboxIO): Promise<string | undefined> {
  const owner = ownPane(io.env);
  if (owner === null || !(await hasStateDir(io))) return undefined;
  return gateCheck(io, owner);
}
