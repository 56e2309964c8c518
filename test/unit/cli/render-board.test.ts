// `dogsled board` for people: an agent row names its harness and model (spec: the board), on the
// line under its title, above the reason; a job row's title is its command, so it gets no such line.
import { describe, expect, it } from 'vitest';
import { renderBoard } from '../../../cli/render/board-human.js';
import { paint } from '../../../cli/render/color.js';
import type { Board, BoardRow } from '../../../service/core/board/board-rule.js';

const NOW = 1_800_000_000_000;

function row(over: Partial<BoardRow>): BoardRow {
  return {
    kind: 'agent',
    id: 'i_kpyawwzh5whf',
    host: 'local',
    pane: 'w1:p2',
    title: 'kid',
    detail: 'pi · anthropic/claude-sonnet-4-5',
    state: 'working',
    since_ms: NOW - 2_000,
    age_ms: 2_000,
    reason: null,
    place: null,
    item: 'i_kpyawwzh5whf',
    job: null,
    ticket: null,
    group: 'running',
    seen_ms: null,
    ...over,
  };
}

function board(attention: BoardRow[], running: BoardRow[]): Board {
  return {
    version: 1,
    owner: 'w1:p1',
    now_ms: NOW,
    groups: [
      { id: 'attention', title: 'ATTENTION', rows: attention },
      { id: 'running', title: 'RUNNING', rows: running },
    ],
  };
}

describe('board rows for people', () => {
  it('name the harness and model of an agent, with the reason when it needs the owner', () => {
    const lines = renderBoard(
      board(
        [row({ state: 'done', group: 'attention', reason: 'idle without dogsled done' })],
        [
          row({ id: 'i_other', title: 'writer' }),
          row({ kind: 'job', id: 'j_1', title: 'make test', detail: '/tmp', group: 'running' }),
        ],
      ),
      paint(false),
    );
    expect(lines).toEqual([
      'board of w1:p1 · 1 attention · 2 running',
      'ATTENTION',
      expect.stringMatching(/^ {2}agent i_kpyawwzh5whf +done +2s {2}local w1:p2 +kid$/),
      `${' '.repeat(25)}pi · anthropic/claude-sonnet-4-5`,
      `${' '.repeat(25)}idle without dogsled done`,
      'RUNNING',
      expect.stringMatching(/^ {2}agent i_other +working .*writer$/),
      `${' '.repeat(25)}pi · anthropic/claude-sonnet-4-5`,
      expect.stringMatching(/^ {2}job j_1 +working .*make test$/),
    ]);
  });
});
