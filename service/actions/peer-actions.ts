// `read`, `close` and `send` of a child on a peer: the peer runs the same command on its own state
// and Herdr (`host read|close|send`, every argument as data) and answers with the result the local
// command gives; this host only names the peer in it and, for close, closes the owner's items there.

import { hostname } from 'node:os';
import * as z from 'zod/mini';
import type { CloseResult } from '../agents/close-child.js';
import { applyClosures } from '../core/agents/item-closing.js';
import type { Item } from '../core/agents/item-types.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import type { InboxSender } from '../core/inbox/inbox-types.js';
import { type HostAnswer, needsPeers, sendTarget } from '../core/inbox/send-target.js';
import { SETUP_CAP_MS } from '../core/placement/budget.js';
import { plainStrings } from '../core/text/clean.js';
import type { PeerHost } from '../hosts/fleet.js';
import { enabledPeers } from '../hosts/fleet.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { readPeerEntry } from '../hosts/peer-cache.js';
import { hostOfFlag } from '../hosts/peer-cleanup.js';
import { peerCall } from '../hosts/peer-verb.js';
import { awaitNotices } from '../inbox/outbox.js';
import { checkSendRequest, type SendRequest, type SendResult, sendMessage } from '../inbox/send.js';
import { targetsOnThisHost } from '../inbox/send-targets.js';
import { lazySchema } from '../state/engine/lazy-schema.js';
import type { HostIO, ProcessIO } from '../state/io.js';
import { branchHolds } from '../state/records/branch-observations.js';
import { hostIdentity } from '../state/records/identity.js';
import { updateItems } from '../state/records/queue-items.js';
import { InboxRecordSchema } from '../state/schemas/inbox-schemas.js';
import { ReceiptSchema } from '../state/schemas/receipt-schemas.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import { isTerminalError } from '../terminal/terminal-errors.js';
import type { ReadReport } from './read.js';

/** `--kind` and the like, checked before the message is read (stdin may be long). */
export { checkSendOptions } from '../inbox/send.js';
export type { SendResult };

const text = lazySchema(() => z.nullable(z.string()));

const ReadReportSchema = lazySchema(() =>
  z.looseObject({
    target: z.string(),
    kind: z.enum(['agent', 'job']),
    item: text,
    name: text,
    host: z.string(),
    pane: text,
    output: text,
    reply: text,
    // Absent from an older peer: its receipt is not known here.
    receipt: z.optional(z.nullable(ReceiptSchema)),
  }),
);

const CloseResultSchema = lazySchema(() =>
  z.looseObject({
    pane: z.string(),
    worktree: z.nullable(
      z.looseObject({
        path: z.string(),
        branch: text,
        workspace: text,
        branch_deleted: z.boolean(),
        anchor_closed: z.optional(z.boolean()),
      }),
    ),
    pane_closed: z.boolean(),
    // What the child's item there kept; absent from an older peer.
    child: z.optional(
      z.nullable(z.looseObject({ reply: text, receipt: z.optional(z.nullable(ReceiptSchema)) })),
    ),
  }),
);

const SendResultSchema = lazySchema(() =>
  z.looseObject({
    record: InboxRecordSchema,
    to: z.looseObject({ terminal: z.string(), pane: z.string(), name: text }),
    waits: z.optional(z.nullable(z.looseObject({ harness: z.string(), state: z.string() }))),
  }),
);

function parsed<T>(peer: PeerHost, verb: string, schema: z.ZodMiniType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new DogsledError(`${peer.label}: host ${verb} answered something that is not dogsled's`);
  return result.data;
}

/** `read TARGET --host PEER`, or of a child or job whose item names that peer. */
export async function readOnPeer(
  io: HostIO,
  peer: PeerHost,
  target: string,
  shownAs = target,
): Promise<ReadReport> {
  const report = parsed(peer, 'read', ReadReportSchema, await peerCall(io, peer, ['read', target]));
  // A peer's receipt names models its transcripts wrote: shown only escape-free.
  return { ...report, receipt: plainStrings(report.receipt ?? null), target: shownAs, host: peer.id };
}

/**
 * `close PANE --host PEER`: the peer's own close (its teardown commands take up to the setup cap),
 * then this host's open items of that pane on that peer close too, keeping the reply and receipt
 * the peer's item kept (as a close here keeps them; the receipt escape-free, the reply cleaned
 * where it is shown).
 */
export async function closeOnPeer(io: HostIO, peer: PeerHost, pane: string): Promise<CloseResult> {
  const value = await peerCall(io, peer, ['close', pane], { timeoutMs: SETUP_CAP_MS });
  const { child, ...rest } = parsed(peer, 'close', CloseResultSchema, value);
  const result = rest as CloseResult;
  const holds = await branchHolds(io);
  await updateItems(io, (items) => {
    const closing = (item: Item) => item.closed_ms === null && item.host === peer.id && item.pane === pane;
    const ids = items.items.filter(closing).map((item) => ({ id: item.id, reason: 'closed' }));
    const kept = (item: Item): Item =>
      child == null || item.kind !== 'agent' || !closing(item)
        ? item
        : {
            ...item,
            reply: item.reply ?? child.reply,
            receipt: item.receipt ?? plainStrings(child.receipt ?? null),
          };
    const withEnd = { ...items, items: items.items.map(kept) };
    const { next, changed } = applyClosures(withEnd, ids, io.now(), holds(items.items));
    return changed ? { result: undefined, next } : { result: undefined };
  });
  return result;
}

/** `send TARGET --host PEER`: the record is written into the inbox there, named as sent from here. */
export async function sendOnPeer(
  io: HostIO,
  peer: PeerHost,
  request: { target: string; kind: string; text: string; sender: InboxSender },
): Promise<SendResult> {
  const input = JSON.stringify({ text: request.text, sender: request.sender });
  const value = await peerCall(io, peer, ['send', request.target, request.kind], { input });
  return parsed(peer, 'send', SendResultSchema, value);
}

/** Peers asked where a target is get this long each: a hung one must not hold a send for long. */
const WHEREIS_MS = 10_000;

const WhereisSchema = lazySchema(() =>
  z.looseObject({
    matches: z.array(z.looseObject({ terminal: z.string(), pane: z.string(), name: text })),
  }),
);

/**
 * `send` to any host: this host's inbox (inbox/send.ts), or a peer's named by `--host`. Without
 * `--host` the target is looked up across the fleet (core/send-target.ts): a name on every enabled
 * peer (`host whereis`, each over the transport), a pane id on the peers only when this host has no
 * such pane; found on one host it goes there, on two or more it is refused with all of them listed.
 */
export async function sendAnywhere(
  io: ProcessIO,
  request: SendRequest,
  load: () => Promise<HostIO>,
): Promise<SendResult> {
  if (request.host === LOCAL_HOST.id || request.host === LOCAL_HOST.label) {
    return sendMessage(io, { ...request, host: null });
  }
  checkSendRequest({ ...request, host: null });
  if (request.host === null) return sendFound(io, request, load);
  const host = await load();
  const peer = await hostOfFlag(host, request.host);
  if (peer === null) return sendMessage(io, { ...request, host: null });
  return sendToPeer(io, host, peer, request);
}

/** The record written on `peer` and named as sent from here. */
async function sendToPeer(
  io: ProcessIO,
  host: HostIO,
  peer: PeerHost,
  request: SendRequest,
): Promise<SendResult> {
  // With this host's identity: the child's host tells the sender `<name> finished` through its outbox.
  const sender: InboxSender = {
    pane: callerPane(io.env),
    terminal: null,
    host: hostname(),
    name: null,
    host_id: await hostIdentity(io),
  };
  const sent = await sendOnPeer(host, peer, {
    target: request.target,
    kind: request.kind,
    text: request.text,
    sender,
  });
  // Sent: this host's service now takes that peer's outbox, where the child's `finished` waits.
  await awaitNotices(host, peer.id).catch((error: unknown) =>
    host.warn(`dogsled: warning: send: ${messageOf(error)}`),
  );
  return sent;
}

/** Without `--host`: the one host in the fleet where the target is, or a one-line refusal. */
async function sendFound(
  io: ProcessIO,
  request: SendRequest,
  load: () => Promise<HostIO>,
): Promise<SendResult> {
  const here = await lookHere(io, request.target);
  if (!needsPeers(request.target, here)) return sendMessage(io, { ...request, host: null });
  const host = await load();
  const peers = await enabledPeers(host);
  // No peer to ask: this host's own answer, with its own refusals (no reader, no Herdr…).
  if (peers.length === 0) return sendMessage(io, { ...request, host: null });
  const answers = [here, ...(await Promise.all(peers.map((peer) => lookOnPeer(host, peer, request.target))))];
  const decision = sendTarget(request.target, answers);
  if (decision.kind === 'refused') throw new DogsledError(decision.message);
  if (decision.kind === 'here') return sendMessage(io, { ...request, host: null });
  const peer = peers.find((candidate) => candidate.id === decision.host) as PeerHost;
  return sendToPeer(io, host, peer, request);
}

async function lookHere(io: ProcessIO, target: string): Promise<HostAnswer> {
  try {
    return { host: 'local', label: LOCAL_HOST.label, matches: await targetsOnThisHost(io, target) };
  } catch (error) {
    if (!(error instanceof DogsledError) && !isTerminalError(error)) throw error;
    return { host: 'local', label: LOCAL_HOST.label, error: messageOf(error) };
  }
}

/** A peer's candidates, or why it could not be asked (unreachable, backing off, no Herdr there…). */
async function lookOnPeer(io: HostIO, peer: PeerHost, target: string): Promise<HostAnswer> {
  const entry = await readPeerEntry(io, peer.id).catch(() => undefined);
  if (entry?.unreachable && entry.retry_at_ms !== null && io.now() < entry.retry_at_ms) {
    return { host: peer.id, label: peer.label, error: `unreachable: ${entry.unreachable}` };
  }
  try {
    const value = await peerCall(io, peer, ['whereis', target], { timeoutMs: WHEREIS_MS });
    const { matches } = parsed(peer, 'whereis', WhereisSchema, value);
    return { host: peer.id, label: peer.label, matches };
  } catch (error) {
    if (!(error instanceof DogsledError)) throw error;
    // peerCall names the peer first; the refusal lists it by its label already.
    const reason = messageOf(error);
    const prefix = `${peer.label}: `;
    return {
      host: peer.id,
      label: peer.label,
      error: reason.startsWith(prefix) ? reason.slice(prefix.length) : reason,
    };
  }
}
