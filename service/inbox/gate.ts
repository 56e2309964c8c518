// The stop gate's I/O: reads the owner's items and the snapshot's agent panes, asks core/gate.ts
// whether this set of finished children was already reminded of, and records the set in gate.json
// (under its lock, taken alone) before the reminder is printed. A crash after the record loses one
// reminder; it never repeats one, so an unchanged set cannot make a continuation loop.

import { gateReminder, gateStep, type LandFacts, toLandRows } from '../core/gate.js';
import { flatText } from '../core/inbox-text.js';
import { type Gate, GateSchema } from '../state/inbox-schemas.js';
import type { StateIO } from '../state/io.js';
import { readState, updateState } from '../state/store.js';
import { readItems } from '../state/work.js';
import type { Item } from '../state/work-schemas.js';
import { guarded } from './files.js';

function ownerOpenItems(items: readonly Item[], owner: string): Item[] {
  return items.filter((item) => item.owner === owner && item.closed_ms === null);
}

/** The snapshot's schema is large and only needed when the owner has agent children. */
async function agentPanes(io: StateIO): Promise<LandFacts[]> {
  const { HostSnapshotSchema } = await import('../state/schemas.js');
  const snapshot = await readState(io.paths.host, HostSnapshotSchema, io);
  return snapshot?.probe.agent_panes ?? [];
}

function withHistory(gate: Gate | undefined, owner: string, sets: string[] | null, now: number): Gate {
  const owners = { ...(gate?.owners ?? {}) };
  if (sets === null) delete owners[owner];
  else owners[owner] = { ...(owners[owner] ?? {}), sets, updated_ms: now };
  return { ...(gate ?? { version: 1 }), version: 1, owners };
}

/**
 * The reminder for `owner`'s finished children with work to land, or undefined when there is none
 * or this set was already reminded of. Clears the owner's history once it has no open items.
 */
export async function gateCheck(io: StateIO, owner: string): Promise<string | undefined> {
  const items = (await readItems(io)).items;
  const open = ownerOpenItems(items, owner);
  const seen = await guarded(io, io.paths.gate, () => readState(io.paths.gate, GateSchema, io));
  const history = seen?.owners[owner]?.sets;
  if (open.length === 0 && history === undefined) return undefined;
  const rows = open.some((item) => item.kind === 'agent')
    ? toLandRows(items, await agentPanes(io), owner)
    : [];
  if (!gateStep(history, rows, open.length).changed) return undefined;
  const remind = await guarded(io, io.paths.gate, () =>
    updateState(io.paths.gate, GateSchema, io, (current) => {
      const step = gateStep(current?.owners[owner]?.sets, rows, open.length);
      if (!step.changed) return { result: false };
      return { result: step.remind, next: withHistory(current, owner, step.next, io.now()) };
    }),
  );
  return remind ? gateReminder(rows, flatText) : undefined;
}
