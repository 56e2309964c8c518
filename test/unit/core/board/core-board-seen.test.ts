import { describe, expect, it } from 'vitest';
import { type BoardRow, boardOf, boardRows } from '../../../../service/core/board/board-rule.js';
import {
  dismissTarget,
  keptSeen,
  SEEN_KEEP_MS,
  SEEN_MAX,
} from '../../../../service/core/board/board-seen.js';

const NOW = 1_800_000_000_000;
const OWNER = 'w1:p1';

function rows(): BoardRow[] {
  const items = [
    { id: 'i1', kind: 'job' as const, host: 'local', pane: null, owner: OWNER, created_ms: NOW - 60_000 },
    { id: 'i2', kind: 'job' as const, host: 'local', pane: null, owner: OWNER, created_ms: NOW - 60_000 },
  ].map((it, i) => ({ ...it, closed_ms: null, close_reason: null, job: `j${i + 1}`, ticket: null }));
  const jobs = new Map([
    [
      'j1',
      {
        id: 'j1',
        command: ['false'],
        cwd: '/',
        host: 'local',
        pane: null,
        created_ms: NOW - 60_000,
        started_ms: NOW - 50_000,
        ended_ms: NOW - 40_000,
        exit_code: 1,
        signal: null,
        reason: null,
      },
    ],
    [
      'j2',
      {
        id: 'j2',
        command: ['sleep', '9'],
        cwd: '/',
        host: 'local',
        pane: null,
        created_ms: NOW - 60_000,
        started_ms: NOW - 50_000,
        ended_ms: null,
        exit_code: null,
        signal: null,
        reason: null,
      },
    ],
  ]);
  return boardRows(boardOf({ owner: OWNER, items, tickets: [], jobs }, NOW));
}

describe('which row board --dismiss names', () => {
  it('takes an ATTENTION row by its job id or its item id', () => {
    expect(dismissTarget(rows(), 'j1', OWNER)).toMatchObject({ kind: 'row', row: { id: 'j1' } });
    expect(dismissTarget(rows(), 'i1', OWNER)).toMatchObject({ kind: 'row', row: { id: 'j1' } });
  });

  it('refuses a row outside ATTENTION and an id that is not on the board, saying which', () => {
    expect(dismissTarget(rows(), 'j2', OWNER)).toEqual({
      kind: 'refused',
      reason: 'job j2 is in RUNNING: only ATTENTION rows are dismissed',
    });
    expect(dismissTarget(rows(), 'j_nope', OWNER)).toEqual({
      kind: 'refused',
      reason: 'no row j_nope on the board of w1:p1',
    });
  });

  it('says a row was seen already rather than refusing it', () => {
    const seen = rows().map((row) =>
      row.id === 'j1' ? { ...row, group: 'done' as const, seen_ms: NOW } : row,
    );
    expect(dismissTarget(seen, 'j1', OWNER)).toMatchObject({ kind: 'seen', row: { id: 'j1' } });
  });
});

describe('how long dismissals are kept', () => {
  it('drops those older than the keep, and keeps the newest SEEN_MAX', () => {
    const old = { seen_ms: NOW - SEEN_KEEP_MS - 1 };
    const young = { seen_ms: NOW - 1000 };
    expect(keptSeen([old, young], NOW)).toEqual([young]);
    const many = Array.from({ length: SEEN_MAX + 5 }, (_, i) => ({ seen_ms: NOW - i }));
    const kept = keptSeen(many, NOW);
    expect(kept).toHaveLength(SEEN_MAX);
    expect(kept[0]!.seen_ms).toBe(NOW);
  });
});
