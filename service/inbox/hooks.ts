// What the harness hooks do (spec, "Inbox" and "Prompt context and integrations"): `hook inbox`
// registers the reader and claims the next batch (with the stop gate's reminder at Stop), `hook
// gate` gives the reminder alone (Pi), `hook context` gathers the owner's work and the fleet. Each
// returns data or undefined ("add nothing"); the CLI renders it for the harness and acknowledges
// what it printed. Outside a Herdr pane, without a state directory or without a snapshot, a hook
// adds nothing.

import { stat } from 'node:fs/promises';
import { batchText } from '../core/inbox-text.js';
import { type OwnerPaneFacts, type OwnerWork, ownerWork } from '../core/owner-work.js';
import { type HostsIO, readLocalHost } from '../hosts/local.js';
import type { HostView } from '../hosts/view.js';
import { readItems, readQueue } from '../state/work.js';
import { callerPaneId, inHerdrPane } from '../terminal/caller.js';
import { gateCheck } from './gate.js';
import type { InboxIO } from './io.js';
import { claimDelivery, type Delivery, registerReader } from './reader.js';
import { openHerdr, requireCaller } from './whereabouts.js';

export const HOOK_HARNESSES = ['claude', 'codex', 'pi'] as const;
export type HookHarness = (typeof HOOK_HARNESSES)[number];
export const INBOX_HOOK_EVENTS = ['Stop', 'UserPromptSubmit'] as const;
export type InboxHookEvent = (typeof INBOX_HOOK_EVENTS)[number];

/** Herdr calls inside a hook get this long each; the whole hook has five seconds. */
const HOOK_CALL_MS = 2_000;

async function hasStateDir(io: InboxIO): Promise<boolean> {
  try {
    return (await stat(io.paths.dir)).isDirectory();
  } catch {
    return false;
  }
}

async function caller(io: InboxIO, command: string) {
  const port = await openHerdr({ env: io.env, home: io.home, commandName: command, timeoutMs: HOOK_CALL_MS });
  return requireCaller(port, io.env, command);
}

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
  if (!inHerdrPane(io.env) || !(await hasStateDir(io))) return NOTHING;
  const at = await caller(io, 'hook inbox');
  const delivery = await claimDelivery(io, at, harness);
  const owner = callerPaneId(io.env);
  const reminder = event === 'Stop' && owner !== null ? await gateCheck(io, owner) : undefined;
  const parts: string[] = [];
  if (delivery.records.length > 0) parts.push(batchText(delivery.records, io.now(), delivery.left));
  if (reminder !== undefined) parts.push(reminder);
  return { text: parts.length > 0 ? parts.join('\n\n') : undefined, delivery };
}

/** `hook gate`: the reminder alone, for Pi's settle hook. */
export async function gateHook(io: InboxIO): Promise<string | undefined> {
  const owner = callerPaneId(io.env);
  if (!inHerdrPane(io.env) || owner === null || !(await hasStateDir(io))) return undefined;
  return gateCheck(io, owner);
}

export interface HookContext {
  owner: string;
  work: OwnerWork;
  hosts: HostView[];
  openItems: number;
  pendingTickets: number;
}

/**
 * `hook context`: the caller's own work, then the fleet. At SessionStart a Claude Code or Codex hook
 * also registers the session's reader, so messages reach a new agent from its first prompt on;
 * that registration is best effort and never costs the context.
 */
export async function contextHook(
  io: InboxIO & HostsIO,
  harness: HookHarness,
  event: string,
): Promise<HookContext | undefined> {
  const owner = callerPaneId(io.env);
  if (!inHerdrPane(io.env) || owner === null || !(await hasStateDir(io))) return undefined;
  if (event === 'SessionStart' && harness !== 'pi') {
    await caller(io, 'hook context')
      .then((at) => registerReader(io, at, harness))
      .catch(() => undefined);
  }
  const host = await readLocalHost(io);
  if (host.sample_ms === null) return undefined;
  const [items, queue] = await Promise.all([readItems(io), readQueue(io)]);
  const panes: OwnerPaneFacts[] = host.probe?.agent_panes ?? [];
  return {
    owner,
    work: ownerWork(owner, items.items, queue.tickets, panes),
    hosts: [host],
    openItems: items.items.filter((item) => item.closed_ms === null).length,
    pendingTickets: queue.tickets.filter((t) => t.state === 'pending' || t.state === 'admitting').length,
  };
}
