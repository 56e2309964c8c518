// The sidebar's modals, one at a time: the menu of a selected row (model/view.ts says what it holds),
// the y/n confirmation of stop, cancel and close, the one-line box a message to a child is typed in,
// and the read popup. Each acts through the app's Actions, then says how it went on the message line.

import type { BoardRow } from '../service/core/board/board-rule.js';
import type { Board } from './board.js';
import { dismiss } from './input.js';
import { displayText, wrapCells } from './model/cells.js';
import { type MenuEntry, menuFor, question } from './model/view.js';

const READ_LINES = 20;

type Modal =
  | { kind: 'menu'; row: BoardRow; entries: MenuEntry[] }
  | { kind: 'confirm'; row: BoardRow; entry: MenuEntry }
  | { kind: 'read' }
  | { kind: 'send' };

export class Modals {
  private modal: { kind: Modal['kind']; widget: { destroy(): void }; data: Modal } | undefined;

  constructor(private readonly board: Board) {}

  /** The open modal's kind, or null when none is open. */
  get open(): Modal['kind'] | null {
    return this.modal?.kind ?? null;
  }

  openMenu(): void {
    const { board } = this;
    const row = board.view.focus === 'work' ? (board.frame?.selected ?? null) : null;
    if (!row) {
      board.say('select an agent, job or ticket first');
      return;
    }
    const entries = menuFor(row);
    const list = board.tui.list({
      ...this.centred(),
      width: '90%',
      height: entries.length + 2,
      label: ` ${row.kind} ${row.id} `,
      keys: true,
      vi: true,
      mouse: true,
      tags: true,
      items: entries.map((e) => board.tui.escape(e.enabled ? e.label : `${e.label} - ${e.note}`)),
      style: { selected: { inverse: true }, item: {}, border: { fg: board.colour('accent') ?? 'default' } },
    });
    list.on('select', (_item, index) => this.chosen(entries[index] as MenuEntry, row));
    list.focus();
    this.modal = { kind: 'menu', widget: list, data: { kind: 'menu', row, entries } };
    board.screen.render();
  }

  /** y or n while a confirmation is up; ignored otherwise. */
  confirmed(yes: boolean): void {
    if (this.modal?.kind !== 'confirm') return;
    const { row, entry } = this.modal.data as Extract<Modal, { kind: 'confirm' }>;
    this.close();
    if (!yes) {
      this.board.say(`${entry.action}: not done`);
      return;
    }
    const verb = entry.action as 'stop' | 'cancel' | 'close';
    const id =
      verb === 'stop'
        ? (row.job ?? row.id)
        : verb === 'close'
          ? (row.pane ?? row.id)
          : (row.ticket ?? row.id);
    void this.board.actions.run(verb, id).then((line) => {
      this.board.say(line);
      void this.board.reload();
    });
  }

  /** Where every modal stands: framed, in the middle of the screen. */
  private centred() {
    return { parent: this.board.screen, top: 'center', left: 'center', border: { type: 'line' } } as const;
  }

  close(): void {
    if (!this.modal) return;
    this.modal.widget.destroy();
    this.modal = undefined;
    this.board.render();
  }

  private chosen(entry: MenuEntry, row: BoardRow): void {
    const { board } = this;
    this.close();
    if (!entry.enabled) {
      board.say(`${entry.label}: ${entry.note}`);
      return;
    }
    if (entry.confirm) {
      const box = board.tui.box({
        ...this.centred(),
        width: '90%',
        height: 3,
        content: board.tui.escape(`${question(entry.action, row)} y/n`),
        tags: true,
      });
      this.modal = { kind: 'confirm', widget: box, data: { kind: 'confirm', row, entry } };
      board.screen.render();
      return;
    }
    if (entry.action === 'read') {
      const target = row.kind === 'agent' ? (row.item ?? row.id) : (row.job ?? row.id);
      void this.showRead(target);
    }
    if (entry.action === 'send' && row.pane !== null) this.askMessage(row, row.pane);
    if (entry.action === 'dismiss') void dismiss(board);
  }

  /** The message for a child, typed into a one-line box; it travels to `dogsled send` on stdin. */
  private askMessage(row: BoardRow, pane: string): void {
    const { board } = this;
    const input = board.tui.textbox({
      ...this.centred(),
      width: '90%',
      height: 3,
      label: ` message to ${displayText(row.title)} `,
    });
    this.modal = { kind: 'send', widget: input, data: { kind: 'send' } };
    input.readInput((error, value) => {
      // blessed reports one ⏎ as both `return` and `enter`: the box stays up until the second has
      // passed, or it would reach the screen and focus the selected pane.
      setImmediate(() => {
        this.close();
        if (error || typeof value !== 'string' || value.trim() === '') {
          board.say('send: nothing sent');
          return;
        }
        void board.actions.run('send', pane, value).then((line) => {
          board.say(line);
          void board.reload();
        });
      });
    });
    board.screen.render();
  }

  private async showRead(target: string): Promise<void> {
    const { board } = this;
    const inner = Math.max(1, Number(board.screen.width) - 2);
    // Wrapped here, not by blessed, so the box is as tall as what it shows (newest lines last).
    const lines = (await board.actions.read(target, READ_LINES)).flatMap((line) => wrapCells(line, inner));
    const height = Math.min(Number(board.screen.height), lines.length + 2);
    const box = board.tui.box({
      ...this.centred(),
      width: '100%',
      height,
      wrap: false,
      label: ` ${displayText(target)} `,
      tags: true,
      content: lines
        .slice(-(height - 2))
        .map((l) => board.tui.escape(l))
        .join('\n'),
    });
    this.modal = { kind: 'read', widget: box, data: { kind: 'read' } };
    board.screen.render();
  }
}
