// `send PANE --message TEXT` in its common case, for the lean bundle (cli/hot/send-lean.ts): a pane
// id Herdr lists on this host, so no peer is asked (core/inbox/send-target.ts), sent from a pane it
// lists too. Herdr's listing comes in one call checked by hand (terminal/herdr/listing-glance.ts),
// items.json is checked by hand as its schema checks it (state/checks), and the target is resolved
// by the full send's own rule (inbox/listing-targets.ts). The record is written at once when nothing
// needs settling (inbox/send-now.ts: the lock free, no refusal, nothing to compact, no body file),
// else by the full send's own write (inbox/send-write.ts) with the inbox files checked by hand as
// their schemas check them. What it doubts before the write (a name, which peers may hold too; a
// pane Herdr must resolve; a file that is not what its schema reads) is undefined with nothing
// written, and the full command answers. An error the write itself meets (a refusal under the lock,
// a file that is a directory, a lock held past its bound) is thrown as the full path throws it after
// the same lookups.

import { isInboxKind, waitsForHook } from '../core/inbox/inbox.js';
import type { InboxSender } from '../core/inbox/inbox-types.js';
import { checkedMessage } from '../core/inbox/message-text.js';
import { isName } from '../core/inbox/send-target.js';
import { LOCAL_HOST } from '../hosts/local-view.js';
import { listedPane, targetsInListing } from '../inbox/listing-targets.js';
import type { SendResult } from '../inbox/send.js';
import { sendNow } from '../inbox/send-now.js';
import type { InboxChecks } from '../inbox/send-write.js';
import { InboxCheck, SettledInboxCheck } from '../state/checks/inbox-check.js';
import type { RecordCheck } from '../state/engine/record-check.js';
import type { ProcessIO } from '../state/io.js';
import { glanceItemRecords } from '../state/records/work-glance.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import { glanceListing } from '../terminal/herdr/listing-glance.js';

/** As long as the full path waits for Herdr's `ping` before it falls back. */
const LISTING_MS = 5_000;

/** A file the hand check would judge other than valid: the full path quarantines it and says so. */
class Doubt extends Error {}

/** A check that passes what its schema passes, and throws a Doubt (nothing quarantined) otherwise. */
function doubting<T>(check: RecordCheck<T>): RecordCheck<T> {
  return {
    safeParse(value) {
      const result = check.safeParse(value);
      if (!result.success) throw new Doubt('a file in doubt');
      return result;
    },
  };
}

const CHECKS: InboxChecks = { inbox: doubting(InboxCheck), settled: doubting(SettledInboxCheck) };

function doubted(error: unknown): boolean {
  for (let at = error; at instanceof Error; at = at.cause) if (at instanceof Doubt) return true;
  return false;
}

export interface GlanceSendRequest {
  target: string;
  kind: string;
  text: string;
}

/** The record sent, or undefined with nothing written when the full `send` must answer. */
export async function glanceSend(io: ProcessIO, request: GlanceSendRequest): Promise<SendResult | undefined> {
  const { target, kind, text } = request;
  // The refusals of the flags, and an argument that was not UTF-8, are the full path's to word.
  if (!isInboxKind(kind) || isName(target) || text.includes('\uFFFD')) return undefined;
  try {
    checkedMessage(text, '--message');
  } catch {
    return undefined;
  }
  const listing = await glanceListing(io.env, io.home, LISTING_MS);
  const items = listing && glanceItemRecords(io);
  if (listing === undefined || items === undefined) return undefined;
  const found = targetsInListing(listing, target, items);
  const [to] = found ?? [];
  if (to === undefined || found?.length !== 1) return undefined;
  const pane = callerPane(io.env);
  const from = pane === null ? null : listedPane(listing, pane);
  if (from === undefined) return undefined;
  const sender: InboxSender = {
    pane: from?.pane ?? null,
    terminal: from?.terminal ?? null,
    host: LOCAL_HOST.id,
    name: from?.name ?? null,
  };
  const message = { kind, sender, text };
  let sent = sendNow(io, to, message);
  try {
    // Not written at once (the lock held, a refusal, compaction, a body file): the full send's write,
    // loaded only now, since it brings node:fs/promises and the store.
    sent ??= await (await import('../inbox/send-write.js')).writeSent(io, CHECKS, to, message);
  } catch (error) {
    // A file in doubt, found before anything was written. Anything else (a refusal under the lock,
    // a file that is a directory, a lock held past its bound) the full path meets the same way.
    if (doubted(error)) return undefined;
    throw error;
  }
  const { record, harness } = sent;
  const status = listing.agents.find((agent) => agent.terminal_id === to.terminal)?.agent_status;
  const state = waitsForHook(harness, status);
  return { record, to, waits: state === null || harness === undefined ? null : { harness, state } };
}
