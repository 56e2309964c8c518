// The stop gate's I/O: reads the owner's TO LAND rows (work/to-land.ts, the board's own), asks
// core/gate.ts whether this set of finished children was already reminded of, and records the set
// in gate.json (under its lock, taken alone) before the reminder is printed. A crash after the record
// loses one reminder; it never repeats one, so an unchanged set cannot make a continuation loop.

import type { Item } from '../core/agents/item-types.js';
import { GATE_HISTORY_MAX, gateReminder, gateStep } from '../core/inbox/gate-rule.js';
import type { Gate } from '../core/inbox/inbox-types.js';
import { factsFor, type LandPane } from '../core/inbox/to-land-rule.js';
import { plainLine } from '../core/text/clean.js';
import { mayHaveToLand, readToLand } from '../queue/to-land-rows.js';
import { guarded } from '../state/engine/guarded.js';
import { readState, updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { readItems } from '../state/records/queue-items.js';
import { GateSchema } from '../state/schemas/inbox-schemas.js';

function ownerOpenItems(items: readonly Item[], owner: string): Item[] {
  return items.filter((item) => item.owner === owner && item.closed_ms === null);
}

/** The snapshot's agent panes (with their checkouts' cwd, for the sweep's findings). */
type GatePane = LandPane & { cwd?: string | null };

/** The snapshot's schema is large and only needed when the owner has open items. */
async function agentPanes(io: StateIO): Promise<GatePane[]> {
  const { HostSnapshotSchema } = await import('../state/schemas/host-schemas.js');
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
 * The latest sweep pass's findings in work `owner` created (core/sweep.ts, the ownership rule): its
 * open items' panes and the checkouts they work in, and what its launches made or started a child
 * in (its items, open or kept after closing, name their launch records).
 */
export async function ownerFindings(
  io: StateIO,
  owner: string,
  items: readonly Item[],
  panes: readonly GatePane[],
) {
  const [{ readLatestSweep }, sweep] = await Promise.all([
    import('../sweep/sweep-files.js'),
    import('../core/cleanup/sweep-rule.js'),
  ]);
  const pass = await readLatestSweep(io).catch(() => undefined);
  if (pass === undefined) return [];
  const findings = sweep.cleanupFindings(pass);
  if (findings.length === 0) return [];
  const mine = items.filter((item) => item.owner === owner);
  if (mine.length === 0) return [];
  const [{ readLaunchRecord }, { readRegistries }] = await Promise.all([
    import('../state/records/launch-files.js'),
    import('../state/records/registries.js'),
  ]);
  const childPanes = new Set<string>();
  const paths: string[] = [];
  const branches: Array<{ repository: string; branch: string }> = [];
  for (const item of mine) {
    if (item.closed_ms === null) {
      if (item.pane !== null) childPanes.add(item.pane);
      const facts = factsFor(item, panes);
      if (facts?.cwd) paths.push(facts.cwd);
      if (item.worktree) paths.push(item.worktree);
    }
    if (item.launch == null) continue;
    // Unreadable: it proves nothing, so nothing is claimed through it.
    const launch = await readLaunchRecord(io.paths, item.launch).catch(() => undefined);
    if (launch === undefined || launch.owner !== owner) continue;
    if (launch.worktree !== null) paths.push(launch.worktree);
    if (launch.started_ms !== null) paths.push(launch.cwd);
    if (launch.branch !== null && item.repository)
      branches.push({ repository: item.repository, branch: launch.branch });
  }
  const registered = await readRegistries(io).catch(() => ({ worktrees: [] as Array<{ path: string }> }));
  return sweep.ownedFindings(findings, {
    panes: childPanes,
    paths,
    branches,
    checkouts: registered.worktrees.map((worktree) => worktree.path),
  });
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
  const panes = open.length > 0 ? await agentPanes(io) : [];
  // A launch names its owner after its child closed: findings are looked for while it has items here.
  const findings = items.some((item) => item.owner === owner)
    ? await ownerFindings(io, owner, items, panes)
    : [];
  if (open.length === 0 && history === undefined && !landing && findings.length === 0) return undefined;
  const rows = landing ? await readToLand(io, owner, items, panes) : [];
  const { cleanupReminder, findingsKey } = await import('../core/cleanup/sweep-rule.js');
  const findingSet = findingsKey(findings);
  const newFindings = (sets: readonly string[] | undefined) =>
    findingSet !== '' && !sets?.includes(findingSet);
  // With neither open items nor rows the TO LAND history starts over, but an owner told of findings
  // keeps its entry while they last, so the same set is never told twice.
  const keepsEntry = open.length === 0 && rows.length === 0 && findings.length > 0;
  const landStep = (sets: readonly string[] | undefined) => {
    if (!keepsEntry) return gateStep(sets, rows, open.length);
    return { remind: false, next: [], changed: sets === undefined || sets.length > 0 };
  };
  if (!landStep(history).changed && !newFindings(seen?.owners[owner]?.cleanup_sets)) {
    return undefined;
  }
  const remind = await guarded(io, io.paths.gate, () =>
    updateState(io.paths.gate, GateSchema, io, (current) => {
      const mine = current?.owners[owner];
      const step = landStep(mine?.sets);
      // An owner with open items keeps a history, even one with no TO LAND set yet.
      const cleanup = newFindings(mine?.cleanup_sets);
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
