// `send`: one record into the inbox of an agent on this host. The target is resolved through the
// terminal port, Herdr or tmux (an agent name, an open child's or tracked pane's name, else a pane:
// inbox/targets.ts), to its terminal; a name that names two panes here is refused, and a target
// whose harness has never registered a reader is refused at once, so a record never waits where
// nothing reads it. The sender is named from its own pane, so a failure can come back to its inbox.
// A peer's agent is reached through its own `host send` (work/peer-actions.ts), which lands here on
// that host; which host a target is on, when `--host` is not given, is decided there too.
// Under the inbox's lock a send first compacts it (settled records out of the live file, the oldest
// evicted for room) and is refused, with nothing written, when it does not fit beside what waits.

import { DogsledError } from '../core/common/errors.js';
import {
  INBOX_KINDS,
  type InboxKind,
  isInboxKind,
  pendingRecord,
  sendRefusal,
  waitsForHook,
} from '../core/inbox/inbox.js';
import { INBOX_MAX_BYTES, recordBytes, storedText } from '../core/inbox/inbox-space.js';
import type { InboxRecord, InboxSender } from '../core/inbox/inbox-types.js';
import { checkedMessage } from '../core/inbox/message-text.js';
import { clip, plainLine } from '../core/text/clean.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { newId } from '../state/engine/ids.js';
import type { ProcessIO } from '../state/io.js';
import { readItems } from '../state/records/queue-items.js';
import { updateInbox } from './inbox-files.js';
import { targetsHere } from './send-targets.js';
import { compactLocked, dropBodies, storeRecord } from './settled.js';
import { callerWhereabouts, openHerdr, type Whereabouts } from './whereabouts.js';

export interface SendRequest {
  /** An agent name or a pane id. */
  target: string;
  /** `--host`: null or this host (a peer's is work/peer-actions.ts). */
  host: string | null;
  kind: string;
  text: string;
  /** Who sent it, when the sender is on another host (`host send`); else the caller's own pane. */
  sender?: InboxSender;
}

export interface SendResult {
  record: InboxRecord;
  to: Whereabouts;
  /**
   * The target is a Claude Code or Codex agent that is not working: the record waits for its next
   * prompt or stop, when its hook reads the inbox. Its harness and state; absent when it is read now.
   */
  waits?: { harness: string; state: string } | null;
}

/** Checks the flag that needs no text and no Herdr: the kind. Throws the refusal. */
export function checkSendOptions(kind: string): void {
  if (!isInboxKind(kind)) {
    throw new DogsledError(
      `send: --kind ${clip(plainLine(kind), 40)}: expected one of ${INBOX_KINDS.join(', ')}`,
    );
  }
}

/** Checks what needs no Herdr: the host, the kind and the text. Throws the one-line refusal. */
export function checkSendRequest(request: SendRequest): void {
  checkSendOptions(request.kind);
  checkedMessage(request.text, 'the message');
}

/** Sizes in a refusal, to a tenth of a MiB: `28.0 MiB`. */
function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export async function sendMessage(io: ProcessIO, request: SendRequest): Promise<SendResult> {
  checkSendRequest(request);
  if (request.host !== null && request.host !== LOCAL_HOST.id && request.host !== LOCAL_HOST.label) {
    throw new DogsledError(`send: --host ${plainLine(request.host)} is not this host`);
  }
  const kind = request.kind as InboxKind;
  const port = await openHerdr({ env: io.env, home: io.home, commandName: 'send' });
  const listing = await port.listAll();
  const found = await targetsHere(port, listing, request.target, (await readItems(io)).items);
  const [to] = found;
  if (to === undefined) {
    throw new DogsledError(`send: no agent or pane "${clip(plainLine(request.target), 80)}" on this host`);
  }
  if (found.length > 1) {
    const listed = found
      .slice(0, 5)
      .map((at) => (at.name ? `${at.pane} ${at.name}` : at.pane))
      .concat(found.length > 5 ? [`and ${found.length - 5} more`] : [])
      .join(', ');
    throw new DogsledError(
      `send: "${clip(plainLine(request.target), 80)}" names ${found.length} panes here: ${plainLine(listed)}; send to one pane id; nothing was sent`,
    );
  }
  const from = request.sender === undefined ? await callerWhereabouts(port, io.env, listing) : undefined;
  const sender: InboxSender = request.sender ?? {
    pane: from?.pane ?? null,
    terminal: from?.terminal ?? null,
    host: LOCAL_HOST.id,
    name: from?.name ?? null,
  };
  const label = to.name ? `${to.name} (${to.pane})` : to.pane;
  // Measured once (a 4 MiB text is cleaned to count its characters): stored below as measured here.
  const stored = storedText(request.text);
  const weight = recordBytes(stored);
  const dropped: InboxRecord[] = [];
  let harness: string | undefined;
  const record = await updateInbox(io, to.terminal, to.pane, async (inbox) => {
    harness = inbox?.reader?.harness;
    const refusal = sendRefusal(inbox);
    if (refusal === 'no reader') {
      throw new DogsledError(
        `send: ${label} has no inbox reader: no dogsled hook or extension has run in its harness yet; nothing was sent`,
      );
    }
    if (refusal === 'full') {
      throw new DogsledError(
        `send: the inbox of ${label} is full: its reader has not taken what waits there`,
      );
    }
    const plan = await compactLocked(io, to.terminal, inbox, { incoming: weight });
    if (!plan.fits) {
      throw new DogsledError(
        `send: no room in the inbox of ${label}: ${mib(plan.waitingBytes)} wait undelivered there and this message needs ${mib(weight)}, over the ${mib(INBOX_MAX_BYTES)} an inbox holds; nothing was sent`,
      );
    }
    dropped.push(...plan.dropped);
    const added = await storeRecord(
      io,
      to.terminal,
      pendingRecord({ id: newId('m'), kind, sender, text: request.text }, io.now()),
      stored,
    );
    return { result: added, next: { ...inbox, pane: to.pane, records: [...plan.live, added] } };
  });
  // Written: the records this send dropped for room (or for age) lose their bodies only now.
  await dropBodies(io, to.terminal, dropped);
  const status = listing.agents.find((agent) => agent.terminal_id === to.terminal)?.agent_status;
  const state = waitsForHook(harness, status);
  return { record, to, waits: state === null || harness === undefined ? null : { harness, state } };
}
