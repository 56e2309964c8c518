import { describe, expect, it } from 'vitest';
import { renderBrief } from '../../../cli/render/status-brief.js';
import { renderSweep } from '../../../cli/render/status-sweep.js';
import { renderItems, renderWork, ticketWhat } from '../../../cli/render/status-work.js';
import type { Item } from '../../../service/core/agents/item-types.js';
import { sweepCounts } from '../../../service/core/cleanup/sweep-rule.js';
import type { Ticket } from '../../../service/core/placement/queue-types.js';
import { SweepPassSchema } from '../../../service/state/schemas/sweep-schemas.js';

const NOW = 1_800_000_000_000;

function agent(over: Partial<Item> = {}): Item {
  return {
    id: 'i_abcdefghijkl',
    kind: 'agent',
    host: 'local',
    pane: 'w2:p1',
    terminal_id: 't2',
    owner: 'w1:p1',
    created_ms: NOW - 90_000,
    closed_ms: null,
    close_reason: null,
    job: null,
    ticket: null,
    ...over,
  };
}

const HOSTILE = `unpushed: 3 commits only on feat/\u001b[2J\u001b]0;pwned\u0007x${'y'.repeat(10_000)}\nsecond line`;

describe('orphans in status', () => {
  it('puts orphaned: and the reason on the item line, escape-free, one line, within 80 columns', () => {
    const lines = renderWork(
      [
        agent({ orphaned: { reason: 'dirty', since_ms: NOW } }),
        agent({ id: 'i_2', orphaned: { reason: HOSTILE, since_ms: NOW } }),
      ],
      [],
      NOW,
    );
    expect(lines[2]).toMatch(/i_abcdefghijkl {2}- {2}open 90s {2}orphaned: dirty$/);
    expect(lines[3]).toMatch(/orphaned: unpushed: 3 commits only on fea…$/);
    for (const line of lines) {
      expect(line.length).toBeLessThanOrEqual(80);
      expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
    }
  });

  it('shows no orphan on a closed item, nor for a reason the service cleared', () => {
    const text = renderItems(
      [
        agent({ closed_ms: NOW, close_reason: 'done', orphaned: { reason: 'working', since_ms: NOW } }),
        agent({ orphaned: null }),
      ],
      [],
      NOW,
    ).join('\n');
    expect(text).not.toContain('orphaned');
  });

  it('counts orphans in the brief, only when there are some', () => {
    expect(renderBrief([], { openItems: 3, pendingTickets: 0, orphaned: 2 }).at(-1)).toBe(
      '3 open items · 2 orphaned · details: dogsled status',
    );
    expect(renderBrief([], { openItems: 3, pendingTickets: 0, orphaned: 0 }).at(-1)).toBe(
      '3 open items · details: dogsled status',
    );
  });
});

describe('orphans in sweep records', () => {
  const base = {
    version: 1,
    ts_ms: NOW,
    started_ms: NOW,
    finished_ms: NOW,
    request_ms: NOW,
    results: [],
    skipped: [],
    failures: [],
    warnings: [],
    landed_dirty: [],
    unlinked: [],
    error: null,
  };

  it('reads a pass written before orphans were recorded, and one of the orphan check (no request)', () => {
    expect(SweepPassSchema.safeParse(base).success).toBe(true);
    const check = { ...base, request_ms: null, trigger: 'orphans', orphans: [] };
    expect(SweepPassSchema.safeParse(check).success).toBe(true);
    expect(SweepPassSchema.safeParse({ ...base, trigger: 'later' }).success).toBe(false);
  });

  it('counts held orphans and lists them, escape-free, under the cleanup line', () => {
    const pass = SweepPassSchema.parse({
      ...base,
      orphans: [
        { item: 'i_1', name: 'unit\u001b[31m', pane: 'w2:p1', path: '/r/.worktrees/x', reason: HOSTILE },
      ],
    });
    expect(sweepCounts(pass).held).toBe(1);
    const lines = renderSweep(pass, NOW + 60_000);
    expect(lines[0]).toBe('cleanup   last pass 60s ago: 1 held');
    expect(lines[1]).toContain('held: orphan unit');
    for (const line of lines) {
      expect(line.length).toBeLessThanOrEqual(78);
      expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
    }
  });

  it('counts one landed-dirty path as one path', () => {
    const dirty = (n: number) => ({ repository: '/r', checkout: '/r/w', ref: 'x', dirty: n, paths: [] });
    const pass = SweepPassSchema.parse({ ...base, landed_dirty: [dirty(1), dirty(2)] });
    const lines = renderSweep(pass, NOW + 60_000);
    expect(lines).toContain('  - held: /r/w landed but dirty (1 path)');
    expect(lines).toContain('  - held: /r/w landed but dirty (2 paths)');
  });

  it('names a spawned child ticket by name and harness, not as a placement', () => {
    const ticket = (agent: unknown) =>
      ({ id: 't_1', kind: 'agent', request: null, agent }) as unknown as Ticket;
    expect(ticketWhat(ticket({ launch: 'l_1', kind: 'pi', name: 'kid\u001b[31m' }))).toBe('kid (pi)');
    expect(ticketWhat(ticket(undefined))).toBe('placement');
  });
});
