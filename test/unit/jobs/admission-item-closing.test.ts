import { describe, expect, it } from 'vitest';
import {
  applyClosures,
  ITEM_RETENTION_MS,
  isExpiredItem,
  itemsHoldingBranches,
  jobEndedReason,
  paneGone,
  type SeenPanes,
} from '../../../service/core/agents/item-closing.js';
import type { Item } from '../../../service/core/agents/item-types.js';
import { itemFixture } from '../../helpers/job-fixtures.js';

const NOW = 1_900_000_000_000;
const NONE: ReadonlySet<string> = new Set();

function item(fields: Partial<Item> & Pick<Item, 'id'>): Item {
  return itemFixture({ created_ms: NOW - 60_000, ...fields });
}

const seen: SeenPanes = { panes: new Set(['w1:p2', 'w1:p3']), terminals: new Set(['term-2', 'term-3']) };

describe('pane disappearance', () => {
  it('judges an item gone only when Herdr shows neither its terminal nor its pane', () => {
    expect(paneGone({ pane: 'w1:p9', terminal_id: 'term-9' }, seen)).toBe(true);
    expect(paneGone({ pane: 'w1:p9', terminal_id: 'term-2' }, seen)).toBe(false);
    expect(paneGone({ pane: 'w1:p2', terminal_id: 'term-9' }, seen)).toBe(false);
    expect(paneGone({ pane: 'w1:p9', terminal_id: null }, seen)).toBe(true);
    expect(paneGone({ pane: null, terminal_id: 'term-9' }, seen)).toBe(true);
  });

  it('never judges an item without a pane or terminal (a headless job) by panes', () => {
    const empty: SeenPanes = { panes: new Set(), terminals: new Set() };
    expect(paneGone({ pane: null, terminal_id: null }, empty)).toBe(false);
  });
});

describe('closing reasons', () => {
  it('names how the job ended', () => {
    const ended = { started_ms: 1, ended_ms: 2, exit_code: null, signal: null, reason: null };
    expect(jobEndedReason({ ...ended, exit_code: 3 })).toBe('job ended (exit 3)');
    expect(jobEndedReason({ ...ended, exit_code: 0 })).toBe('job ended (exit 0)');
    expect(jobEndedReason({ ...ended, signal: 'SIGTERM', reason: 'timeout' })).toBe('job ended (timeout)');
    expect(jobEndedReason({ ...ended, signal: 'SIGKILL' })).toBe('job ended (SIGKILL)');
    expect(jobEndedReason({ ...ended, reason: 'wrapper lost' })).toBe('job ended (wrapper lost)');
  });
});

describe('applying closures', () => {
  it('closes open items with their reason, leaves closed ones as they were, and drops day-old ones', () => {
    const items = {
      version: 1 as const,
      items: [
        item({ id: 'a' }),
        item({ id: 'b', closed_ms: NOW - 5_000, close_reason: 'job ended (exit 0)' }),
        item({ id: 'c' }),
        item({ id: 'old', closed_ms: NOW - ITEM_RETENTION_MS - 1, close_reason: 'pane gone' }),
      ],
    };
    const { next, closed, changed } = applyClosures(
      items,
      [
        { id: 'a', reason: 'pane gone' },
        { id: 'b', reason: 'pane gone' },
      ],
      NOW,
      NONE,
    );
    expect(changed).toBe(true);
    expect(closed.map((i) => i.id)).toEqual(['a']);
    expect(next.items.map((i) => [i.id, i.closed_ms, i.close_reason])).toEqual([
      ['a', NOW, 'pane gone'],
      ['b', NOW - 5_000, 'job ended (exit 0)'],
      ['c', null, null],
    ]);
  });

  it('reports no change when nothing closes and nothing expired', () => {
    const items = { version: 1 as const, items: [item({ id: 'a' }), item({ id: 'b', closed_ms: NOW - 1 })] };
    expect(applyClosures(items, [{ id: 'missing', reason: 'x' }], NOW, NONE).changed).toBe(false);
  });

  it('keeps closed items for exactly a day', () => {
    expect(isExpiredItem({ id: 'a', closed_ms: NOW - ITEM_RETENTION_MS }, NOW, NONE)).toBe(false);
    expect(isExpiredItem({ id: 'a', closed_ms: NOW - ITEM_RETENTION_MS - 1 }, NOW, NONE)).toBe(true);
    expect(isExpiredItem({ id: 'a', closed_ms: null }, 0, NONE)).toBe(false);
  });
});

describe('a finished child with a branch to land', () => {
  const child = (id: string, closed_ms: number) =>
    item({
      id,
      kind: 'agent',
      job: null,
      branch: `feat/${id}`,
      repository: '/repo',
      closed_ms,
      close_reason: 'done',
    });
  const year = NOW - 365 * ITEM_RETENTION_MS;

  it('is kept whatever its age while its branch has commits or changes to land, or was never observed', () => {
    const items = [child('ahead', year), child('dirty', year), child('unseen', year), child('merged', year)];
    const branches = [
      { item: 'ahead', ahead: 3, dirty: false, landed: false },
      { item: 'dirty', ahead: 0, dirty: true, landed: false },
      { item: 'merged', ahead: 0, dirty: false, landed: true },
    ];
    const holding = itemsHoldingBranches(items, branches);
    expect([...holding].sort()).toEqual(['ahead', 'dirty', 'unseen']);
    const { next } = applyClosures({ version: 1, items }, [], NOW, holding);
    expect(next.items.map((i) => i.id)).toEqual(['ahead', 'dirty', 'unseen']);
  });

  it('expires a day after it closed once its branch is integrated or deleted, like any item', () => {
    const items = [child('landed', NOW - ITEM_RETENTION_MS - 1), child('fresh', NOW - 1)];
    const branches = [
      { item: 'landed', ahead: 0, dirty: false, landed: true },
      { item: 'fresh', ahead: 0, dirty: false, landed: true },
    ];
    const { next } = applyClosures({ version: 1, items }, [], NOW, itemsHoldingBranches(items, branches));
    expect(next.items.map((i) => i.id)).toEqual(['fresh']);
  });

  it('holds nothing for a job item or a child without a branch', () => {
    const items = [item({ id: 'job', closed_ms: year }), { ...child('plain', year), branch: null }];
    expect(itemsHoldingBranches(items, [])).toEqual(new Set());
  });
});
