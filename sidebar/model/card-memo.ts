// The Agents & Jobs cards of one read, kept between redraws (work.ts builds them). A redraw without a
// read (the age tick, a key) sees the same rows with their ages moved on: a card whose shown age
// reads the same is reused whole, one whose age reads differently gets its age and why lines again
// (its head, pill to where, does not depend on the age). A new read, another width or another
// selection builds the card afresh, so a card drawn from the memo is the card `card` would build.

import type { BoardRow } from '../../service/core/board/board-rule.js';
import { type Line, rowKey, type Segment, type SidebarHost } from './types.js';
import { cardHead, cardLines, cardTail, shownAge } from './work.js';

interface Kept {
  /** The row the card was last built for: every field but its age must match to reuse the card. */
  row: BoardRow;
  width: number;
  selected: boolean;
  head: Segment[][];
  age: string;
  lines: Line[];
}

/** How many cards a redraw built or reused, for tests and DOGSLED_TIMING. */
export interface CardCounts {
  built: number;
  aged: number;
  reused: number;
}

export class CardMemo {
  private read: object | undefined;
  private readonly kept = new Map<string, Kept>();
  counts: CardCounts = { built: 0, aged: 0, reused: 0 };

  /**
   * The state a redraw draws, as its read returned it (before its ages are moved on): its cards'
   * why lines read its hosts, so another read forgets every card.
   */
  begin(read: object): void {
    this.counts = { built: 0, aged: 0, reused: 0 };
    if (read === this.read) return;
    this.read = read;
    this.kept.clear();
  }

  card(row: BoardRow, width: number, selected: boolean, hosts: readonly SidebarHost[]): Line[] {
    const key = rowKey(row);
    const kept = this.kept.get(key);
    const age = shownAge(row);
    if (kept && kept.width === width && kept.selected === selected && sameButAge(kept.row, row)) {
      if (kept.age === age) {
        this.counts.reused += 1;
        return kept.lines;
      }
      this.counts.aged += 1;
      const lines = cardLines(row, selected, [...kept.head, ...cardTail(row, width, selected, hosts)]);
      this.kept.set(key, { ...kept, row, age, lines });
      return lines;
    }
    this.counts.built += 1;
    const head = cardHead(row, width, selected);
    const lines = cardLines(row, selected, [...head, ...cardTail(row, width, selected, hosts)]);
    this.kept.set(key, { row, width, selected, head, age, lines });
    return lines;
  }
}

/** Whether two rows differ in nothing but their age (a row's every field is a string, number or null). */
function sameButAge(a: BoardRow, b: BoardRow): boolean {
  if (a === b) return true;
  const fields = Object.keys(a) as Array<keyof BoardRow>;
  if (fields.length !== Object.keys(b).length) return false;
  for (const field of fields) if (field !== 'age_ms' && a[field] !== b[field]) return false;
  return true;
}
