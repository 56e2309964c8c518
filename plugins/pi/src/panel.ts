// `/dogsled`, the control panel (spec, "Pi"): four tabs (panel-tabs.ts says what each shows and
// does), read when the tab opens and again with `r`. j/k move the selection; a tab's keys act on
// the selected row and say in one line what happened, then the tab is read again. It never starts
// a process manager, edits todos or writes into a terminal.

import { plainLine } from '../../../service/core/text/clean.js';
import { textComponent } from './message.js';
import { PANEL_TABS, type PanelAction, type PanelTab, type TabView } from './panel-tabs.js';
import type { ExtensionUIContext, PiComponent, PiTheme, PiTui } from './pi-api.js';

export { PANEL_TABS, type PanelTab } from './panel-tabs.js';

/** Rows shown at once; the selection scrolls the rest. */
const VIEW_ROWS = 20;

const KEYS = {
  next: ['\t', '\x1b[C', 'l'],
  previous: ['\x1b[Z', '\x1b[D', 'h'],
  down: ['j', '\x1b[B'],
  up: ['k', '\x1b[A'],
  reload: ['r'],
  close: ['\x1b', 'q', '\x03'],
};

/** Where the panel was when it closed for an action that asks, and what that action said. */
export interface PanelPlace {
  tab: number;
  selected: number;
  said?: string;
}

/** Why the panel closed: undefined (escape), or an action to run with it closed, then reopen. */
export type PanelExit = (PanelPlace & { action: PanelAction }) | undefined;

/** Opens the panel; reopens it where it was after each action that needed Pi's input or editor. */
export async function runPanel(
  ui: ExtensionUIContext,
  load: (tab: PanelTab) => Promise<TabView>,
): Promise<void> {
  let place: PanelPlace | undefined;
  for (;;) {
    const at = place;
    const exit = await ui.custom<PanelExit>(
      (tui, theme, _keys, done) => new Panel(load, tui, theme, done, at),
    );
    if (exit === undefined) return;
    const said = await exit.action.run().catch((error: unknown) => messageOf(error));
    place = { tab: exit.tab, selected: exit.selected, said };
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class Panel implements PiComponent {
  private tab = 0;
  private offset = 0;
  private selected = 0;
  private view: TabView = { rows: [{ text: 'loading…' }] };
  /** The last action's one line, until the tab changes. */
  private said: string | undefined;
  private loading = 0;
  private acting = false;

  constructor(
    private readonly load: (tab: PanelTab) => Promise<TabView>,
    private readonly tui: PiTui,
    private readonly theme: PiTheme,
    private readonly done: (exit: PanelExit) => void,
    place?: PanelPlace,
  ) {
    this.tab = (place?.tab ?? 0) % PANEL_TABS.length;
    this.said = place?.said;
    void this.reload(true, place?.selected ?? 0);
  }

  current(): PanelTab {
    return PANEL_TABS[this.tab] as PanelTab;
  }

  render(width: number): string[] {
    const tabs = PANEL_TABS.map((name, i) => (i === this.tab ? `[${name}]` : ` ${name} `)).join(' ');
    const rows = this.view.rows;
    const body = rows
      .slice(this.offset, this.offset + VIEW_ROWS)
      .map((row, i) => `${i + this.offset === this.selected ? '›' : ' '} ${plainLine(row.text)}`);
    const more = rows.length - this.offset - body.length;
    const hint = this.view.hint === undefined ? '' : `${this.view.hint} · `;
    const footer = `${hint}tab switch · j/k select · r reload · esc close${more > 0 ? ` · ${more} more below` : ''}`;
    return [
      ...textComponent([tabs], (line) => this.theme.fg('accent', line)).render(width),
      ...textComponent(body).render(width),
      ...(this.said === undefined
        ? []
        : textComponent([plainLine(this.said)], (line) => this.theme.fg('warning', line)).render(width)),
      ...textComponent([footer], (line) => this.theme.fg('dim', line)).render(width),
    ];
  }

  handleInput(data: string): void {
    if (KEYS.close.includes(data)) this.done(undefined);
    else if (KEYS.next.includes(data)) this.switchTo(this.tab + 1);
    else if (KEYS.previous.includes(data)) this.switchTo(this.tab + PANEL_TABS.length - 1);
    else if (KEYS.down.includes(data)) this.select(this.selected + 1);
    else if (KEYS.up.includes(data)) this.select(this.selected - 1);
    else if (KEYS.reload.includes(data)) void this.reload();
    else {
      const action = this.view.rows[this.selected]?.keys?.[data] ?? this.view.keys?.[data];
      if (action?.asks) this.done({ tab: this.tab, selected: this.selected, action });
      else if (action !== undefined) void this.act(action);
    }
    this.tui.requestRender();
  }

  invalidate(): void {}

  /** Resolves when the action's line is shown and the tab read again (tests wait on it). */
  async act(action: PanelAction): Promise<void> {
    // One action at a time: a second Enter while a retry runs does not start another.
    if (this.acting) return;
    this.acting = true;
    this.said = '…';
    this.tui.requestRender();
    let said: string;
    try {
      said = await action.run().catch(messageOf);
      // The line shows with the tab as it is after the action, never beside the old rows.
      await this.reload(false);
    } finally {
      this.acting = false;
    }
    this.said = said;
    this.tui.requestRender();
  }

  private select(index: number): void {
    this.selected = Math.max(0, Math.min(this.view.rows.length - 1, index));
    if (this.selected < this.offset) this.offset = this.selected;
    if (this.selected >= this.offset + VIEW_ROWS) this.offset = this.selected - VIEW_ROWS + 1;
  }

  private switchTo(index: number): void {
    this.tab = index % PANEL_TABS.length;
    this.said = undefined;
    this.selected = 0;
    void this.reload();
  }

  private async reload(fresh = true, selected = 0): Promise<void> {
    const ticket = ++this.loading;
    const tab = this.current();
    if (fresh) {
      this.view = { rows: [{ text: 'loading…' }] };
      this.offset = 0;
      this.selected = 0;
    }
    const view = await this.load(tab).catch(
      (error: unknown): TabView => ({ rows: [{ text: `unavailable: ${String(error)}` }] }),
    );
    // A slower answer for a tab the user already left is dropped.
    if (ticket !== this.loading) return;
    this.view = view;
    this.select(fresh ? selected : this.selected);
    this.tui.requestRender();
  }
}
