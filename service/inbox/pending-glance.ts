// The harness hooks' common case, nothing pending, read as a glance: every file once, checked by
// hand in the fields the answer depends on (engine/glance-file.ts), no zod, no terminal layer and
// no lock taken to read. Each function says what the full hook would find (nothing to deliver, no
// reminder due) or false: anything else (a record to deliver, a reader to register, an owner with
// children, a terminal not remembered, a file in doubt) is the full hook's (hook-inbox.ts, gate.ts),
// which answers it and quarantines what is bad. The prompt context's glance is context-glance.ts.

import { isCount, isInt, isIntOrNull, isRecord, isStringOrNull, nonEmpty } from '../core/common/shape.js';
import type { HookHarness } from '../core/inbox/hook-input.js';
import { isDeliverable, withReader } from '../core/inbox/inbox.js';
import { INBOX_STATES } from '../core/inbox/inbox-types.js';
import { glanceJson } from '../state/engine/glance-file.js';
import type { ProcessIO, StateIO } from '../state/io.js';
import { glanceItems } from '../state/records/work-glance.js';
import { callerPane, hookPane, ownPane } from '../terminal/herdr/herdr-env.js';
import { herdrServerIdentity } from '../terminal/herdr/server-identity.js';
import { ownTmuxTerminal } from '../terminal/tmux/tmux-env.js';
import { hasStateDir } from './hook-common.js';
import { inboxFile } from './inbox-path.js';
import type { Whereabouts } from './whereabouts.js';

/** The pane a hook reads and reports for, or null when it has nothing to read or add (no pane, no state dir). */
export function glanceOwner(io: ProcessIO): string | null {
  const owner = hookPane(io.env);
  return owner === null || !hasStateDir(io) ? null : owner;
}

/**
 * The caller's inbox location as an earlier hook remembered it under the running Herdr server
 * (pane-terminals.ts, terminals.json, checked as PaneTerminalsSchema would); undefined when it is
 * not remembered, in tmux, or in doubt: the full hook asks Herdr.
 */
export function glanceCaller(io: ProcessIO): Pick<Whereabouts, 'terminal' | 'pane'> | undefined {
  if (ownPane(io.env) === null && ownTmuxTerminal(io.env) !== null) return undefined;
  const pane = callerPane(io.env);
  const server = herdrServerIdentity(io.env, io.home);
  if (pane === null || server === undefined) return undefined;
  const memo = glanceJson(io.paths.paneTerminals);
  if (!memo?.found) return undefined;
  const value = memo.value;
  if (!isRecord(value) || value.version !== 1 || typeof value.server !== 'string') return undefined;
  const panes = value.panes;
  if (!isRecord(panes) || !Object.values(panes).every(isRemembered)) return undefined;
  if (value.server !== server || !Object.hasOwn(panes, pane)) return undefined;
  const hit = panes[pane] as { terminal: string; pane: string };
  return { terminal: hit.terminal, pane: hit.pane };
}

function isRemembered(entry: unknown): boolean {
  return isRecord(entry) && nonEmpty(entry.terminal) && nonEmpty(entry.pane) && isInt(entry.seen_ms);
}

/**
 * True when `harness` already reads this terminal's inbox (from this pane) and no record in it is
 * deliverable: what claimDelivery (reader.ts) finds before it returns nothing, writing nothing.
 */
export function glanceNothingToDeliver(
  io: ProcessIO,
  at: Pick<Whereabouts, 'terminal' | 'pane'>,
  harness: HookHarness,
): boolean {
  let file: string;
  try {
    file = inboxFile(io, at.terminal);
  } catch {
    return false;
  }
  const glanced = glanceJson(file);
  // No inbox yet: the full hook registers the reader.
  if (!glanced?.found) return false;
  const inbox = glanced.value;
  if (!isRecord(inbox) || inbox.version !== 1 || !nonEmpty(inbox.terminal)) return false;
  if (!isStringOrNull(inbox.pane) || !(inbox.reader === null || isReader(inbox.reader))) return false;
  if (!Array.isArray(inbox.records) || !inbox.records.every(isClaimable)) return false;
  const now = io.now();
  const reader = { harness, registered_ms: now, pane: at.pane };
  const shape = { pane: inbox.pane, reader: inbox.reader };
  if (withReader(shape, reader).changed) return false;
  return !inbox.records.some((record) => isDeliverable(record, now));
}

function isReader(
  reader: unknown,
): reader is { harness: string; registered_ms: number; pane: string | null } {
  return (
    isRecord(reader) &&
    nonEmpty(reader.harness) &&
    isInt(reader.registered_ms) &&
    isStringOrNull(reader.pane) &&
    (reader.stop_blocks === undefined || isCount(reader.stop_blocks))
  );
}

/** The fields isDeliverable reads, as InboxRecordSchema has them. */
function isClaimable(
  record: unknown,
): record is { state: (typeof INBOX_STATES)[number]; lease_until_ms: number | null } {
  return (
    isRecord(record) &&
    (INBOX_STATES as readonly unknown[]).includes(record.state) &&
    isIntOrNull(record.lease_until_ms)
  );
}

/**
 * True when the stop gate has nothing to remind `owner` of and nothing to record: it has no item
 * here (so no child to land, no finding in its work) and gate.json keeps no history for it. That is
 * where gateCheck (gate.ts) returns before it writes.
 */
export function glanceNoReminder(io: StateIO, owner: string): boolean {
  const items = glanceItems(io);
  if (items === undefined || items.some((item) => item.owner === owner)) return false;
  const gate = glanceJson(io.paths.gate);
  if (gate === undefined) return false;
  if (!gate.found) return true;
  const value = gate.value;
  if (!isRecord(value) || value.version !== 1 || !isRecord(value.owners)) return false;
  if (!Object.values(value.owners).every(isGateOwner)) return false;
  return !Object.hasOwn(value.owners, owner);
}

function isGateOwner(entry: unknown): boolean {
  const strings = (list: unknown) => Array.isArray(list) && list.every((key) => typeof key === 'string');
  return (
    isRecord(entry) &&
    strings(entry.sets) &&
    (entry.cleanup_sets === undefined || strings(entry.cleanup_sets)) &&
    isInt(entry.updated_ms)
  );
}
