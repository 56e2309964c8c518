// The one module that loads blessed: the sidebar app, which reads cached state (state.ts), refreshed
// when files change (watch.ts), builds the pure frame (model/build.ts) and draws it through its layout
// (layout.ts); keys and mouse (input.ts) and the menu and its modals (menu.ts) act on it as their
// Board, with blessed handed over. Colours come from Herdr's theme (model/theme.ts). blessed and
// blessed-contrib are external to the bundle and loaded only by `dogsled sidebar`; of blessed-contrib
// only the sparkline widget's module and its renderer, never the package index, which loads every
// widget (the map, markdown, a file watcher) and would cost a few hundred milliseconds of start-up.

import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import blessed from 'blessed';
import type { HostIO } from '../service/state/io.js';
import { mark, span } from '../service/time/timing.js';
import { Actions } from './actions.js';
import type { Board } from './board.js';
import { bindInput } from './input.js';
import { Layout } from './layout.js';
import { Modals } from './menu.js';
import { buildSidebar } from './model/build.js';
import type { SparklineRenderer } from './model/spark.js';
import { type Frame, initialView, type Segment, type SidebarState, type ViewState } from './model/types.js';
import { ensureSelection } from './model/view.js';
import { readSidebarState } from './state.js';
import { loadTheme } from './theme-file.js';
import { sidebarTargets, watchState } from './watch.js';

const MESSAGE_MS = 6_000;
const DEBOUNCE_MS = 100;
/** The poll fallback, and how often ages move on the screen. */
const POLL_MS = 5_000;

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

class SidebarApp implements Board {
  readonly tui = blessed;
  readonly screen: blessed.Widgets.Screen;
  readonly actions: Actions;
  state: SidebarState | undefined;
  view: ViewState = initialView();
  frame: Frame | undefined;
  private readonly layout: Layout;
  private readonly modals = new Modals(this);
  private reloading: Promise<void> | undefined;
  private again = false;
  private messageTimer: NodeJS.Timeout | undefined;
  private closeWatch: (() => void) | undefined;
  private drawn = false;

  constructor(
    private readonly options: SidebarOptions,
    private readonly done: () => void,
  ) {
    this.actions = new Actions({ ...options.io, entry: options.entry });
    this.screen = blessed.screen({ smartCSR: true, fullUnicode: true, warnings: false, title: 'dogsled' });
    const theme = loadTheme(options.herdrConfig, options.noColor);
    this.layout = new Layout(blessed, this.screen, theme, contribSparkline());
  }

  async start(): Promise<void> {
    bindInput(this, this.modals, () => this.quit());
    this.screen.on('resize', () => this.render());
    await this.reload();
    const { io, owner, herdrConfig: config, fixtureHosts } = this.options;
    const watching = watchState(
      sidebarTargets(io.paths, owner, config, fixtureHosts),
      () => {
        this.layout.theme = loadTheme(config, this.options.noColor);
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

  render(): void {
    if (!this.state) return;
    const began = performance.now();
    const width = Number(this.screen.width);
    const height = Number(this.screen.height);
    this.frame = buildSidebar(this.state, this.view, this.options.io.now(), width, height);
    this.layout.paint(this.frame, this.view);
    this.screen.render();
    span('sidebar render', performance.now() - began);
    if (!this.drawn) mark('sidebar first frame');
    this.drawn = true;
  }

  colour(role: Segment['fg']): string | undefined {
    return this.layout.colour(role);
  }

  setView(view: ViewState): void {
    this.view = view;
    this.render();
  }

  say(message: string): void {
    if (this.messageTimer) clearTimeout(this.messageTimer);
    this.setView({ ...this.view, message });
    this.messageTimer = setTimeout(() => this.setView({ ...this.view, message: null }), MESSAGE_MS);
    this.messageTimer.unref();
  }

  private quit(): void {
    this.closeWatch?.();
    if (this.messageTimer) clearTimeout(this.messageTimer);
    this.screen.destroy();
    this.done();
  }
}
