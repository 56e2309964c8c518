// The one module that touches blessed: three framed boxes drawn from the pure frame (model/build.ts),
// keys and mouse turned into view transitions (model/view.ts), the menu, its confirmations and the
// read popup. Everything it shows comes from cached state (state.ts), refreshed when files change
// (watch.ts); colours come from Herdr's theme (model/theme.ts). blessed and blessed-contrib are
// external to the bundle and loaded only by `dogsled sidebar`; of blessed-contrib only the sparkline
// widget's module and its renderer, never the package index, which loads every widget (the map,
// markdown, a file watcher) and would cost a few hundred milliseconds of start-up.

import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import blessed from 'blessed';
import type { BoardRow } from '../service/core/board.js';
import type { HostIO } from '../service/state/io.js';
import { mark, span } from '../service/timing.js';
import { Actions } from './actions.js';
import { buildSidebar } from './model/build.js';
import { displayText, wrapCells } from './model/cells.js';
import { drawSpark, type SparklineRenderer } from './model/spark.js';
import { blessedColour, type Theme } from './model/theme.js';
import {
  type Frame,
  initialView,
  type Line,
  type PanelId,
  type Segment,
  type SidebarState,
  type ViewState,
} from './model/types.js';
import {
  clickAt,
  cyclePanel,
  ensureSelection,
  type MenuEntry,
  menuFor,
  moveSelection,
  question,
  scrollPanel,
  toggleFold,
  wheelAt,
} from './model/view.js';
import { readSidebarState } from './state.js';
import { loadTheme } from './theme-file.js';
import { sidebarTargets, watchState } from './watch.js';

/** Two clicks on one line this close together are a double click. */
const DOUBLE_CLICK_MS = 400;
const MESSAGE_MS = 6_000;
const DEBOUNCE_MS = 100;
/** The poll fallback, and how often ages move on the screen. */
const POLL_MS = 5_000;
const READ_LINES = 20;

export interface SidebarOptions {
  /** This host's IO: its state, its policy, and the environment and home Herdr is found with. */
  io: HostIO;
  owner: string;
  /** The dogsled entry (process.argv[1]) that stop and cancel run. */
  entry: string;
  fixtureHosts?: string | undefined;
  /** Herdr's config.toml, for the theme. */
  herdrConfig: string;
  noColor: boolean;
}

type Modal =
  | { kind: 'menu'; row: BoardRow; entries: MenuEntry[] }
  | { kind: 'confirm'; row: BoardRow; entry: MenuEntry }
  | { kind: 'read' }
  | { kind: 'send' };

/**
 * The renderer blessed-contrib's Sparkline widget draws with, resolved from that widget's module so it
 * is the one blessed-contrib ships whatever npm hoisted; null when it cannot be loaded (the cells
 * stay blank rather than the board failing).
 */
function contribSparkline(): SparklineRenderer | null {
  try {
    const here = createRequire(import.meta.url);
    const widget = here.resolve('blessed-contrib/lib/widget/sparkline.js');
    here(widget);
    return createRequire(widget)('sparkline') as SparklineRenderer;
  } catch {
    return null;
  }
}

export function runSidebar(options: SidebarOptions): Promise<number> {
  return new Promise((resolve) => {
    const app = new SidebarApp(options, () => resolve(0));
    app.start().catch(() => resolve(0));
  });
}

class SidebarApp {
  private readonly screen: blessed.Widgets.Screen;
  private readonly boxes: Record<PanelId, blessed.Widgets.BoxElement>;
  private readonly messageBox: blessed.Widgets.BoxElement;
  private readonly actions: Actions;
  private state: SidebarState | undefined;
  private view: ViewState = initialView();
  private frame: Frame | undefined;
  private theme: Theme;
  private modal: { kind: Modal['kind']; widget: blessed.Widgets.BlessedElement; data: Modal } | undefined;
  private reloading: Promise<void> | undefined;
  private again = false;
  private lastClick = { at: 0, y: -1 };
  private messageTimer: NodeJS.Timeout | undefined;
  private closeWatch: (() => void) | undefined;
  private drawn = false;
  private readonly sparkline = contribSparkline();

  constructor(
    private readonly options: SidebarOptions,
    private readonly done: () => void,
  ) {
    this.theme = loadTheme(options.herdrConfig, options.noColor);
    this.actions = new Actions({ ...options.io, entry: options.entry });
    this.screen = blessed.screen({ smartCSR: true, fullUnicode: true, warnings: false, title: 'dogsled' });
    const box = () =>
      blessed.box({
        parent: this.screen,
        left: 0,
        width: '100%',
        border: { type: 'line' },
        tags: true,
        wrap: false,
      });
    this.boxes = { hosts: box(), work: box(), todos: box() };
    this.messageBox = blessed.box({
      parent: this.screen,
      left: 0,
      width: '100%',
      height: 1,
      bottom: 0,
      tags: true,
      hidden: true,
    });
  }

  async start(): Promise<void> {
    this.bindKeys();
    splitMouseReports(this.screen);
    this.screen.enableMouse();
    this.screen.on('mouse', (data) => this.onMouse(data));
    this.screen.on('resize', () => this.render());
    await this.reload();
    const { io, owner, herdrConfig: config, fixtureHosts } = this.options;
    const watching = watchState(
      sidebarTargets(io.paths, owner, config, fixtureHosts),
      () => {
        this.theme = loadTheme(config, this.options.noColor);
        void this.reload();
      },
      { debounceMs: DEBOUNCE_MS, pollMs: POLL_MS },
    );
    this.closeWatch = () => watching.close();
  }

  /** One read at a time; a change during a read asks for one more. */
  reload(): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.again = false;
        const { io, owner, fixtureHosts } = this.options;
        const began = performance.now();
        this.state = await readSidebarState(io, { owner, fixtureHosts });
        span('sidebar read', performance.now() - began);
        this.view = ensureSelection(this.state, this.view);
        this.render();
      } while (this.again);
    })().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private render(): void {
    if (!this.state) return;
    const began = performance.now();
    const width = Number(this.screen.width);
    const height = Number(this.screen.height);
    this.frame = buildSidebar(this.state, this.view, this.options.io.now(), width, height);
    for (const panel of this.frame.panels) {
      const box = this.boxes[panel.id];
      box.top = panel.top;
      box.height = panel.height;
      const focused = this.view.focus === panel.id;
      box.style.border = { fg: this.colour(focused ? 'accent' : 'surface1') ?? 'default' };
      box.setLabel({
        text: this.tagged([{ text: ` ${panel.title} `, fg: focused ? 'accent' : 'subtext0', bold: focused }]),
        side: 'left',
      });
      box.setContent(panel.lines.map((line) => this.lineTags(line)).join('\n'));
    }
    if (this.frame.message) {
      this.messageBox.setContent(this.tagged([{ text: this.frame.message, fg: 'teal' }]));
      this.messageBox.show();
    } else this.messageBox.hide();
    this.screen.render();
    span('sidebar render', performance.now() - began);
    if (!this.drawn) mark('sidebar first frame');
    this.drawn = true;
  }

  private colour(role: Segment['fg']): string | undefined {
    if (!role || this.theme.mono) return undefined;
    return blessedColour(this.theme.palette[role]);
  }

  private lineTags(line: Line): string {
    return this.tagged(line.segments);
  }

  private tagged(segments: readonly Segment[]): string {
    return segments
      .map((s) => {
        const fg = this.colour(s.dim ? 'overlay0' : s.fg);
        const bg = this.colour(s.bg);
        let open = '';
        if (fg) open += `{${fg}-fg}`;
        if (bg) open += `{${bg}-bg}`;
        if (s.bold) open += '{bold}';
        if (s.inverse && this.theme.mono) open += '{inverse}';
        const drawn = s.spark && s.spark.length === s.text.length ? drawSpark(this.sparkline, s.spark) : null;
        const text = blessed.escape(drawn ?? s.text);
        return open ? `${open}${text}{/}` : text;
      })
      .join('');
  }

  private setView(view: ViewState): void {
    this.view = view;
    this.render();
  }

  private say(message: string): void {
    if (this.messageTimer) clearTimeout(this.messageTimer);
    this.setView({ ...this.view, message });
    this.messageTimer = setTimeout(() => this.setView({ ...this.view, message: null }), MESSAGE_MS);
    this.messageTimer.unref();
  }

  private bindKeys(): void {
    const when = (fn: () => void) => () => {
      // Any key but the menu's own closes the read popup.
      if (this.modal?.kind === 'read') this.closeModal();
      else if (!this.modal && this.state) fn();
    };
    this.screen.key(['q', 'C-c'], () => {
      if (this.modal) this.closeModal();
      else this.quit();
    });
    this.screen.key(['escape'], () => this.closeModal());
    const keys: Array<[string[], () => void]> = [
      [['tab'], () => this.setView(cyclePanel(this.view, 1))],
      [['S-tab'], () => this.setView(cyclePanel(this.view, -1))],
      [['down', 'j'], () => this.step(1)],
      [['up', 'k'], () => this.step(-1)],
      [['pagedown'], () => this.step(5)],
      [['pageup'], () => this.step(-5)],
      [['space'], () => this.setView(toggleFold(this.state as SidebarState, this.view))],
      // blessed reports ⏎ as `enter` and then `return`: bound to both, one ⏎ focused the pane
      // twice, and the `return` of a ⏎ that chose a menu entry focused the pane behind the menu.
      [['enter'], () => void this.activate(this.frame?.selected ?? null)],
      [['m'], () => this.openMenu()],
    ];
    for (const [names, action] of keys) this.screen.key(names, when(action));
    this.screen.key(['y'], () => this.confirmed(true));
    this.screen.key(['n'], () => this.confirmed(false));
  }

  private step(delta: number): void {
    const state = this.state as SidebarState;
    if (this.view.focus === 'work') this.setView(moveSelection(state, this.view, delta));
    else this.setView(scrollPanel(this.view, this.view.focus, delta));
  }

  private onMouse(event: blessed.Widgets.Events.IMouseEventArg): void {
    // blessed's types know neither the wheel actions nor the button it reports.
    const data = event as unknown as { action: string; y: number; button?: string };
    if (!this.state || !this.frame) return;
    if (this.modal) {
      if (data.action === 'mousedown' && this.modal.kind === 'read') this.closeModal();
      return;
    }
    if (data.action === 'wheelup' || data.action === 'wheeldown') {
      this.setView(wheelAt(this.state, this.view, this.frame, data.y, data.action === 'wheelup' ? -1 : 1));
      return;
    }
    if (data.action !== 'mousedown' || (data.button && data.button !== 'left')) return;
    const now = Date.now();
    const double = this.lastClick.y === data.y && now - this.lastClick.at < DOUBLE_CLICK_MS;
    this.lastClick = double ? { at: 0, y: -1 } : { at: now, y: data.y };
    const click = clickAt(this.state, this.view, this.frame, data.y, double);
    this.setView(click.view);
    if (click.activate) void this.activate(click.activate);
  }

  /** ⏎: the selected child's pane, focused in Herdr. */
  private async activate(row: BoardRow | null): Promise<void> {
    if (!row || this.view.focus !== 'work') return;
    this.say(await this.actions.focus(row.pane));
  }

  private openMenu(): void {
    const row = this.view.focus === 'work' ? (this.frame?.selected ?? null) : null;
    if (!row) {
      this.say('select an agent, job or ticket first');
      return;
    }
    const entries = menuFor(row);
    const list = blessed.list({
      parent: this.screen,
      top: 'center',
      left: 'center',
      width: '90%',
      height: entries.length + 2,
      border: { type: 'line' },
      label: ` ${row.kind} ${row.id} `,
      keys: true,
      vi: true,
      mouse: true,
      tags: true,
      items: entries.map((e) => blessed.escape(e.enabled ? e.label : `${e.label} - ${e.note}`)),
      style: { selected: { inverse: true }, item: {}, border: { fg: this.colour('accent') ?? 'default' } },
    });
    list.on('select', (_item, index) => this.chosen(entries[index] as MenuEntry, row));
    list.focus();
    this.modal = { kind: 'menu', widget: list, data: { kind: 'menu', row, entries } };
    this.screen.render();
  }

  private chosen(entry: MenuEntry, row: BoardRow): void {
    this.closeModal();
    if (!entry.enabled) {
      this.say(`${entry.label}: ${entry.note}`);
      return;
    }
    if (entry.confirm) {
      const box = blessed.box({
        parent: this.screen,
        top: 'center',
        left: 'center',
        width: '90%',
        height: 3,
        border: { type: 'line' },
        content: blessed.escape(`${question(entry.action, row)} y/n`),
        tags: true,
      });
      this.modal = { kind: 'confirm', widget: box, data: { kind: 'confirm', row, entry } };
      this.screen.render();
      return;
    }
    if (entry.action === 'read') {
      const target = row.kind === 'agent' ? (row.item ?? row.id) : (row.job ?? row.id);
      void this.showRead(target);
    }
    if (entry.action === 'send' && row.pane !== null) this.askMessage(row, row.pane);
  }

  /** The message for a child, typed into a one-line box; it travels to `dogsled send` on stdin. */
  private askMessage(row: BoardRow, pane: string): void {
    const input = blessed.textbox({
      parent: this.screen,
      top: 'center',
      left: 'center',
      width: '90%',
      height: 3,
      border: { type: 'line' },
      label: ` message to ${displayText(row.title)} `,
    });
    this.modal = { kind: 'send', widget: input, data: { kind: 'send' } };
    input.readInput((error, value) => {
      // blessed reports one ⏎ as both `return` and `enter`: the box stays up until the second has
      // passed, or it would reach the screen and focus the selected pane.
      setImmediate(() => {
        this.closeModal();
        if (error || typeof value !== 'string' || value.trim() === '') {
          this.say('send: nothing sent');
          return;
        }
        void this.actions.run('send', pane, value).then((line) => {
          this.say(line);
          void this.reload();
        });
      });
    });
    this.screen.render();
  }

  private confirmed(yes: boolean): void {
    if (this.modal?.kind !== 'confirm') return;
    const { row, entry } = this.modal.data as Extract<Modal, { kind: 'confirm' }>;
    this.closeModal();
    if (!yes) {
      this.say(`${entry.action}: not done`);
      return;
    }
    const verb = entry.action as 'stop' | 'cancel' | 'close';
    const id =
      verb === 'stop'
        ? (row.job ?? row.id)
        : verb === 'close'
          ? (row.pane ?? row.id)
          : (row.ticket ?? row.id);
    void this.actions.run(verb, id).then((line) => {
      this.say(line);
      void this.reload();
    });
  }

  private async showRead(target: string): Promise<void> {
    const inner = Math.max(1, Number(this.screen.width) - 2);
    // Wrapped here, not by blessed, so the box is as tall as what it shows (newest lines last).
    const lines = (await this.actions.read(target, READ_LINES)).flatMap((line) => wrapCells(line, inner));
    const height = Math.min(Number(this.screen.height), lines.length + 2);
    const box = blessed.box({
      parent: this.screen,
      top: 'center',
      left: 'center',
      width: '100%',
      height,
      wrap: false,
      border: { type: 'line' },
      label: ` ${displayText(target)} `,
      tags: true,
      content: lines
        .slice(-(height - 2))
        .map((l) => blessed.escape(l))
        .join('\n'),
    });
    this.modal = { kind: 'read', widget: box, data: { kind: 'read' } };
    this.screen.render();
  }

  private closeModal(): void {
    if (!this.modal) return;
    this.modal.widget.destroy();
    this.modal = undefined;
    this.render();
  }

  private quit(): void {
    this.closeWatch?.();
    if (this.messageTimer) clearTimeout(this.messageTimer);
    this.screen.destroy();
    this.done();
  }
}

/**
 * blessed parses one mouse report per read from the terminal and drops the rest, so the second
 * press of a double click that arrives in the same read as the first (a busy process, a fast
 * mouse) was lost. Each report of a read made only of SGR mouse reports goes to blessed on its own.
 */
function splitMouseReports(screen: blessed.Widgets.Screen): void {
  const program = screen.program as unknown as { _bindMouse(text: string, data: Buffer): void };
  const parse = program._bindMouse.bind(program);
  program._bindMouse = (text, data) => {
    const reports = typeof text === 'string' ? text.match(/\u001b\[<\d+;\d+;\d+[mM]/g) : null;
    if (!reports || reports.length < 2 || reports.join('') !== text) return parse(text, data);
    for (const report of reports) parse(report, Buffer.from(report));
  };
}
