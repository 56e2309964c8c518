// The stop gate's I/O: reads the owner's TO LAND rows (work/to-land.ts, the board's own), asks
// core/gate.ts whether this set of finished children was already reminded of, and records the set
// in gate.json (under its lock, taken alone) before the reminder is printed. A crash after the record
// loses one reminder; it never repeats one, so an unchanged set cannot make a continuation loop.

import { GATE_HISTORY_MAX, gateReminder, gateStep } from '../core/gate.js';
import { plainLine } from '../core/text-clean.js';
import { factsFor, type LandPane } from '../core/to-land.js';
import { type Gate, GateSchema } from '../state/inbox-schemas.js';
import type { StateIO } from '../state/io.js';
import { readState, updateState } from '../state/store.js';
import { readItems } from '../state/work.js';
import type { Item } from '../state/work-schemas.js';
import { mayHaveToLand, readToLand } from '../work/to-land.js';
import { guarded } from './files.js';

function ownerOpenItems(items: readonly Item[], owner: string): Item[] {
  return items.filter((item) => item.owner === owner && item.closed_ms === null);
}

/** The snapshot's agent panes (with their checkouts' cwd, for the sweep's findings). */
type GatePane = LandPane & { cwd?: string | null };

/** The snapshot's schema is large and only needed when the owner has open items. */
async function agentPanes(io: StateIO): Promise<GatePane[]> {
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

/** The latest sweep pass's findings in work `owner` created (its open items' panes and checkouts). */
export async function ownerFindings(io: StateIO, open: readonly Item[], panes: readonly GatePane[]) {
  const [{ readLatestSweep }, sweep] = await Promise.all([
    import('../sweep/files.js'),
    import('../core/sweep.js'),
  ]);
  const pass = await readLatestSweep(io).catch(() => undefined);
  if (pass === undefined) return [];
  const findings = sweep.cleanupFindings(pass);
  if (findings.length === 0) return [];
  const childPanes = new Set(open.flatMap((item) => (item.pane === null ? [] : [item.pane])));
  const paths: string[] = [];
  for (const item of open) {
    const facts = factsFor(item, panes);
    if (facts?.cwd) paths.push(facts.cwd);
  }
  return sweep.ownedFindings(findings, { panes: childPanes, paths });
}

/**
 * The reminders for `owner`: its finished children with work to land (closed ones included: their
 * rows come from items and branch observations), and the latest sweep's findings in work it
 * created, each once per distinct set (separate histories in gate.json), or undefined when neither
 * has anything new. Clears the owner's history once it has no open items and nothing to land.
 */
export async function gateCheck(io: StateIO, owner: string): Promise<string | undefined> {
  const items = (await readItems(io)).items;
  const open = ownerOpenItems(items, owner);
  const seen = await guarded(io, io.paths.gate, () => readState(io.paths.gate, GateSchema, io));
  const history = seen?.owners[owner]?.sets;
  const landing = mayHaveToLand(items, owner);
  if (open.length === 0 && history === undefined && !landing) return undefined;
  const panes = open.length > 0 ? await agentPanes(io) : [];
  const rows = landing ? await readToLand(io, owner, items, panes) : [];
  const findings = open.length > 0 ? await ownerFindings(io, open, panes) : [];
  const { cleanupReminder, findingsKey } = await import('../core/sweep.js');
  const findingSet = findingsKey(findings);
  const newFindings = (sets: readonly string[] | undefined) =>
    findingSet !== '' && !sets?.includes(findingSet);
  if (!gateStep(history, rows, open.length).changed && !newFindings(seen?.owners[owner]?.cleanup_sets)) {
    return undefined;
  }
  const remind = await guarded(io, io.paths.gate, () =>
    updateState(io.paths.gate, GateSchema, io, (current) => {
      const mine = current?.owners[owner];
      const step = gateStep(mine?.sets, rows, open.length);
      // An owner with open items keeps a history, even one with no TO LAND set yet.
      const cleanup = open.length > 0 && newFindings(mine?.cleanup_sets);
      if (!step.changed && !cleanup) return { result: { land: false, cleanup: false } };
      const landSets = step.next ?? (open.length > 0 ? [] : null);
      const next = withHistory(current, owner, landSets, io.now());
      const kept = next.owners[owner];
      if (cleanup && kept !== undefined) {
        kept.cleanup_sets = [...(mine?.cleanup_sets ?? []), findingSet].slice(-GATE_HISTORY_MAX);
      }
      return { result: { land: step.remind, cleanup }, next };
    }),
  );
  const parts: string[] = [];
  if (remind.land) parts.push(gateReminder(rows, plainLine));
  if (remind.cleanup) parts.push(cleanupReminder(findings, plainLine));
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}
