// The Todos panel: the owner's pi-todo v3 `display.sections` as a progress bar, NOW, NEXT (and any
// other section Pi sends, as it titles it), and one fold for done and dropped; items wrap, never cut.
// A publication that cannot be used says why in one line; with no publication at all there is no
// panel (build.ts), and the Agents & Jobs panel may end with TODOS_HINT.

import type { TodoSection } from '../../service/actions/sidebar-state.js';
import { displayText, fitCells, wrapWords } from './cells.js';
import { fill } from './hosts.js';
import type { Line, Role, TodoView } from './types.js';

export const TODOS_FOLD = 'todos:done';
const FOLDED_KINDS = new Set(['done', 'dropped']);
const BAR_CELLS = 10;

export function progressBar(done: number, total: number, width = BAR_CELLS): string {
  if (total <= 0) return '▱'.repeat(width);
  const filled = Math.round((Math.min(done, total) / total) * width);
  return '▰'.repeat(filled) + '▱'.repeat(width - filled);
}

function text(value: string, width: number, fg: Role, bold = false): Line {
  return { segments: [{ text: fitCells(value, width), fg, bold }] };
}

/** `done/total`: the progress section's numbers, else counted from the sections Pi sent. */
export function progressOf(sections: readonly TodoSection[]): { done: number; total: number } {
  const progress = sections.find((s) => s.kind === 'progress');
  if (progress?.done !== undefined && progress.total !== undefined) {
    return { done: progress.done, total: progress.total };
  }
  const count = (kind: string) =>
    sections.filter((s) => s.kind === kind).flatMap((s) => s.lines ?? []).length;
  const done = count('done');
  const total = sections.filter((s) => s.kind !== 'progress').flatMap((s) => s.lines ?? []).length;
  return { done, total };
}

/** The one dim line that says where todos come from, when there are none and the room is spare. */
export const TODOS_HINT = "todos show here when Pi's todo list publishes them";

/** `  • text`, wrapped under its bullet. */
function item(bullet: string, value: string, width: number, fg: Role): Line[] {
  return wrapWords(displayText(value), Math.max(1, width - 4)).map((chunk, i) =>
    text(`${i === 0 ? `  ${bullet} ` : '    '}${chunk}`, width, fg),
  );
}

export function todoLines(todos: TodoView, width: number, doneOpen: boolean): Line[] {
  if (!todos.available) {
    const why = `todos unavailable: ${displayText(todos.reason ?? 'no publication')}`;
    return wrapWords(why, width).map((chunk) => text(chunk, width, 'overlay1'));
  }
  const { sections, current } = todos.lines;
  const { done, total } = progressOf(sections);
  const lines: Line[] = [
    {
      segments: fill(
        [
          { text: progressBar(done, total), fg: 'green' },
          { text: ` ${done}/${total}`, fg: 'subtext0' },
        ],
        BAR_CELLS + 1 + `${done}/${total}`.length,
        width,
      ),
    },
  ];
  const shown = sections.filter((s) => s.kind !== 'progress' && !FOLDED_KINDS.has(s.kind));
  const hasNow = shown.some((s) => s.kind === 'now');
  if (!hasNow && current) {
    lines.push(text('NOW', width, 'yellow', true), ...item('•', current, width, 'text'));
  }
  for (const section of shown) {
    const role: Role = section.kind === 'now' ? 'yellow' : section.kind === 'next' ? 'blue' : 'mauve';
    lines.push(text(displayText(section.title ?? section.kind.toUpperCase()), width, role, true));
    for (const entry of section.lines ?? []) lines.push(...item('•', entry, width, 'text'));
  }
  const folded = sections.filter((s) => FOLDED_KINDS.has(s.kind));
  if (folded.length > 0) {
    const counts = folded
      .map((s) => `${displayText(s.title ?? s.kind)} ${(s.lines ?? []).length}`)
      .join(' · ');
    lines.push({ ...text(`${doneOpen ? '▾' : '▸'} ${counts}`, width, 'overlay1'), fold: TODOS_FOLD });
    if (doneOpen) {
      for (const section of folded) {
        for (const entry of section.lines ?? []) {
          lines.push(...item(section.kind === 'done' ? '✓' : '✗', entry, width, 'overlay0'));
        }
      }
    }
  }
  if (lines.length === 1 && total === 0) lines.push(text('no todos', width, 'overlay0'));
  return lines;
}
