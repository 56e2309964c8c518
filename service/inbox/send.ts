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
import { INBOX_KINDS, type InboxKind, isInboxKind, waitsForHook } from '../core/inbox/inbox.js';
import type { InboxRecord, InboxSender } from '../core/inbox/inbox-types.js';
import { checkedMessage } from '../core/inbox/message-text.js';
import { clip, plainLine } from '../core/text/clean.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import type { ProcessIO } from '../state/io.js';
import { readItems } from '../state/records/queue-items.js';
import { InboxSchema, SettledInboxSchema } from '../state/schemas/inbox-schemas.js';
import { targetsHere } from './send-targets.js';
import { writeSent } from './send-write.js';
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
  const { record, harness } = await writeSent(io, { inbox: InboxSchema, settled: SettledInboxSchema }, to, {
    kind,
    sender,
    text: request.text,
  });
  const status = listing.agents.find((agent) => agent.terminal_id === to.terminal)?.agent_status;
  const state = waitsForHook(harness, status);
  return { record, to, waits: state === null || harness === undefined ? null : { harness, state } };
}
