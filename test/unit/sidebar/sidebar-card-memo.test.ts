// The age tick's cards (sidebar/model/card-memo.ts): a redraw of the same read reuses a card whose
// shown age reads the same and builds again the age and why lines of one whose age reads anew; every
// frame drawn with the memo is the frame drawn without it, at any time, width, selection or fold.
import { describe, expect, it } from 'vitest';
import { type Board, type BoardRow, boardOf, boardRows } from '../../../service/core/board/board-rule.js';
import { formatAge } from '../../../service/core/common/duration.js';
import { agedState, buildSidebar } from '../../../sidebar/model/build.js';
import { CardMemo } from '../../../sidebar/model/card-memo.js';
import {
  initialView,
  type SidebarHost,
  type SidebarState,
  type ViewState,
} from '../../../sidebar/model/types.js';
import { card } from '../../../sidebar/model/work.js';
import { sidebarHost } from '../../helpers/sidebar-host.js';

const NOW = 1_800_000_000_000;
const GIB = 1024 ** 3;
const OWNER = 'w1:p1';

function host(extra: Partial<SidebarHost> = {}): SidebarHost {
  return sidebarHost({ busy_history: [0.1, 0.5], ...extra });
}

/**
 * Running, failed and ended jobs started from 5 s to 3 days ago (ages in seconds, minutes, hours and
 * days), and queued tickets whose why reads the hosts.
 */
function board(): Board {
  const starts = [5_000, 61_000, 119_500, 150_000, 3_599_000, 7_260_000, 90_000_000, 260_000_000];
  const items = starts.map((_, i) => ({
    id: `i${i}`,
    kind: 'job' as const,
    host: 'local',
    pane: `w2:p${i}`,
    owner: OWNER,
    created_ms: NOW - starts[i]! - 1000,
    closed_ms: null,
    close_reason: null,
    job: `j${i}`,
    ticket: null,
  }));
  const jobs = new Map(
    starts.map((ago, i) => [
      `j${i}`,
      {
        id: `j${i}`,
        command: ['npm', 'run', `test:integration-${i}`, '--', '--reporter=verbose'],
        cwd: '/home/someone/src/a-long-repository-name',
        host: 'local',
        pane: `w2:p${i}`,
        created_ms: NOW - ago - 1000,
        started_ms: NOW - ago,
        ended_ms: i % 3 === 2 ? NOW - 1000 : null,
        exit_code: i % 3 === 2 ? (i % 2) * 3 : null,
        signal: null,
        reason: null,
      },
    ]),
  );
  const tickets = [10_000, 70_000, 118_000].map((ago, i) => ({
    id: `t${i}`,
    kind: 'job',
    owner: OWNER,
    pin: null,
    created_ms: NOW - ago,
    state: 'pending',
    state_ms: NOW - ago,
    host: null,
    request: { command: ['make', 'lint'] },
    error: null,
  }));
  return boardOf({ owner: OWNER, items, tickets, jobs }, NOW);
}

function state(hosts: SidebarHost[] = [host()]): SidebarState {
  return {
    owner: OWNER,
    hosts,
    board: board(),
    todos: { available: false, reason: null },
    thresholds: { memory_reserve_bytes: 3 * GIB, disk_free_min_percent: 15 },
    problems: [],
    read_ms: NOW,
  };
}

const rows = (s: SidebarState) => boardRows(s.board as Board);

describe('the age tick rebuilds only the cards whose shown age changed', () => {
  it('reuses a card whose age reads the same and rebuilds one whose age reads anew', () => {
    const memo = new CardMemo();
    const read = state();
    const at = (now: number) => rows(agedState(read, now));
    const first = at(NOW);
    memo.begin(read);
    const before = new Map(first.map((row) => [row.id, memo.card(row, 36, false, read.hosts)]));
    expect(memo.counts).toEqual({ built: first.length, aged: 0, reused: 0 });

    // A second on: the ages in seconds read anew, `2m` (150 s), the hours and the days stay.
    memo.begin(read);
    const later = at(NOW + 1000);
    const after = new Map(later.map((row) => [row.id, memo.card(row, 36, false, read.hosts)]));
    const shown = (row: BoardRow) => (row.age_ms === null ? '' : formatAge(row.age_ms));
    for (const row of later) {
      const old = first.find((r) => r.id === row.id)!;
      const same = shown(old) === shown(row);
      if (same) expect(after.get(row.id)).toBe(before.get(row.id));
      else expect(after.get(row.id)).not.toBe(before.get(row.id));
      expect(after.get(row.id)).toEqual(card(row, 36, false, read.hosts));
    }
    const changed = later.filter((row) => shown(row) !== shown(first.find((r) => r.id === row.id)!));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(later.length);
    expect(memo.counts).toEqual({ built: 0, aged: changed.length, reused: later.length - changed.length });
  });

  it('builds every card again after another read, and a card again at another width or selection', () => {
    const memo = new CardMemo();
    const read = state();
    const row = rows(read)[0]!;
    memo.begin(read);
    const drawn = memo.card(row, 36, false, read.hosts);
    memo.begin(read);
    expect(memo.card(row, 36, false, read.hosts)).toBe(drawn);
    expect(memo.card(row, 30, false, read.hosts)).toEqual(card(row, 30, false, read.hosts));
    expect(memo.card(row, 30, true, read.hosts)).toEqual(card(row, 30, true, read.hosts));
    expect(memo.counts).toEqual({ built: 2, aged: 0, reused: 1 });
    // The same row in a new read (whose hosts a waiting ticket's why reads) is built again.
    const again = state();
    memo.begin(again);
    memo.card(row, 30, true, again.hosts);
    expect(memo.counts).toEqual({ built: 1, aged: 0, reused: 0 });
  });

  it('builds a card again when any field but the age differs, even within one read', () => {
    const memo = new CardMemo();
    const read = state();
    const row = rows(read).find((r) => r.group === 'running')!;
    memo.begin(read);
    memo.card(row, 36, false, read.hosts);
    for (const changed of [
      { ...row, state: 'exit 3' },
      { ...row, title: 'another title' },
      { ...row, reason: 'a reason now' },
      { ...row, seen_ms: NOW },
    ]) {
      expect(memo.card(changed, 36, false, read.hosts)).toEqual(card(changed, 36, false, read.hosts));
    }
    expect(memo.counts.reused).toBe(0);
  });

  it('draws every frame as the builder without a memo does, tick after tick and read after read', () => {
    const hostsNow = [
      host(),
      host({
        id: 'h1',
        label: 'peer-1',
        local: false,
        eligible: false,
        reason: ['cpu: 0.5 free cores, needs 2'],
      }),
    ];
    const reads = [
      state(),
      state(hostsNow),
      state([host({ eligible: false, reason: ['memory: 1 GiB free'] })]),
    ];
    const views: ViewState[] = [
      initialView(),
      { ...initialView(), selected: `running:job:j1`, focus: 'work' },
      { ...initialView(), foldedGroups: [], scroll: { hosts: 0, work: 5, todos: 0 } },
    ];
    const memo = new CardMemo();
    let drawn = 0;
    // A new read at the same width (whose hosts change why a ticket waits) between ticks.
    for (const view of views) {
      for (const [width, height] of [
        [38, 45],
        [60, 30],
      ] as const) {
        // Every 30 s for 65 minutes, then jumps of hours and a day: seconds turn to minutes, `59m` to
        // `60m`, `119m` to `2h`, `2h 1m` on to `2h 2m`, hours to days.
        const times = [
          ...Array.from({ length: 130 }, (_, i) => NOW + i * 30_000),
          NOW + 3 * 3_600_000,
          NOW + 86_400_000,
        ];
        for (const now of times) {
          for (const read of reads) {
            const expected = buildSidebar(read, view, now, width, height);
            expect(buildSidebar(read, view, now, width, height, memo)).toEqual(expected);
            drawn += 1;
          }
        }
      }
    }
    expect(drawn).toBe(3 * 2 * 3 * 132);
    // Some 2,400 frames built twice: seconds alone, a minute on a loaded machine.
  }, 60_000);

  it('reuses most cards on a tick once the ages read in minutes', () => {
    const memo = new CardMemo();
    const read = state();
    const view = { ...initialView(), foldedGroups: [] };
    buildSidebar(read, view, NOW + 3 * 3_600_000, 38, 200, memo);
    expect(memo.counts.built).toBe(rows(read).length);
    buildSidebar(read, view, NOW + 3 * 3_600_000 + 30_000, 38, 200, memo);
    expect(memo.counts.built).toBe(0);
    expect(memo.counts.reused).toBeGreaterThan(memo.counts.aged);
  });
});
