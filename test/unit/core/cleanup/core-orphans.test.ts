import { describe, expect, it } from 'vitest';
import type { Item } from '../../../../service/core/agents/item-types.js';
import {
  type OrphanFacts,
  orphanedCount,
  orphanLines,
  orphanVerdict,
} from '../../../../service/core/cleanup/orphan-rule.js';

function facts(over: Partial<OrphanFacts> = {}): OrphanFacts {
  return {
    item: { id: 'i_1', kind: 'agent', host: 'local', closed_ms: null },
    done: true,
    ownerHere: false,
    host: 'local',
    pane: { kind: 'shell' },
    ...over,
  };
}

function item(over: Partial<Item> = {}): Item {
  return {
    id: 'i_1',
    kind: 'agent',
    host: 'local',
    pane: 'w2:p1',
    terminal_id: 't2',
    owner: 'w1:p1',
    created_ms: 0,
    closed_ms: null,
    close_reason: null,
    job: null,
    ticket: null,
    name: 'unit',
    ...over,
  };
}

describe('orphanVerdict', () => {
  it('closes a child that called done, whose owner is gone, at an idle prompt or an ended turn', () => {
    expect(orphanVerdict(facts())).toEqual({ kind: 'close' });
    for (const status of ['idle', 'done']) {
      expect(orphanVerdict(facts({ pane: { kind: 'agent', status, turnEnded: true } }))).toEqual({
        kind: 'close',
      });
    }
  });

  it('is no orphan without done, with a live owner, once closed, for a job, or when the pane went', () => {
    expect(orphanVerdict(facts({ done: false }))).toEqual({ kind: 'none' });
    expect(orphanVerdict(facts({ ownerHere: true }))).toEqual({ kind: 'none' });
    expect(orphanVerdict(facts({ item: { id: 'i', kind: 'agent', host: 'local', closed_ms: 5 } }))).toEqual({
      kind: 'none',
    });
    expect(orphanVerdict(facts({ item: { id: 'i', kind: 'job', host: 'local', closed_ms: null } }))).toEqual({
      kind: 'none',
    });
    expect(orphanVerdict(facts({ pane: { kind: 'gone' } }))).toEqual({ kind: 'none' });
  });

  it('keeps a working, blocked or unknown orphan open with its reason', () => {
    const at = (status: string) => orphanVerdict(facts({ pane: { kind: 'agent', status, turnEnded: true } }));
    expect(at('working')).toEqual({ kind: 'keep', reason: 'working' });
    expect(at('blocked')).toEqual({ kind: 'keep', reason: 'blocked' });
    expect(at('unknown')).toEqual({ kind: 'keep', reason: 'state unknown' });
    expect(at('\x1b[31mweird')).toEqual({ kind: 'keep', reason: 'state unknown' });
  });

  it('leaves an idle child still in the turn that marked to the finish worker', () => {
    expect(orphanVerdict(facts({ pane: { kind: 'agent', status: 'idle', turnEnded: false } }))).toEqual({
      kind: 'none',
    });
  });

  it('keeps a child on an unreachable host open, and leaves one on a reachable peer to that host', () => {
    const remote = { id: 'i_9', kind: 'agent' as const, host: 'netcup', closed_ms: null };
    expect(orphanVerdict(facts({ item: remote, host: 'unreachable', done: 'unknown' }))).toEqual({
      kind: 'keep',
      reason: 'host netcup is unreachable',
    });
    expect(orphanVerdict(facts({ item: remote, host: 'reachable', done: 'unknown' }))).toEqual({
      kind: 'none',
    });
    // Its owner is still here: nothing to say about it.
    expect(orphanVerdict(facts({ item: remote, host: 'unreachable', ownerHere: true }))).toEqual({
      kind: 'none',
    });
  });
});

describe('orphan lines and counts', () => {
  it('names each open orphan with its pane and reason; closed and plain items are not counted', () => {
    const items = [
      item({ orphaned: { reason: 'dirty: uncommitted changes', since_ms: 1 } }),
      item({
        id: 'i_2',
        name: null,
        pane: null,
        orphaned: { reason: 'host netcup is unreachable', since_ms: 1 },
      }),
      item({ id: 'i_3', closed_ms: 5, orphaned: { reason: 'working', since_ms: 1 } }),
      item({ id: 'i_4', orphaned: null }),
      item({ id: 'i_5' }),
    ];
    expect(orphanLines(items)).toEqual([
      'unit (w2:p1): orphaned: dirty: uncommitted changes',
      'i_2 (local): orphaned: host netcup is unreachable',
    ]);
    expect(orphanedCount(items)).toBe(2);
  });
});
