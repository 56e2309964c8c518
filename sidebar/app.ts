// The one module that loads blessed: the sidebar app, which reads cached state through its action
// (service/actions/sidebar-state.ts), refreshed when files change (watch.ts), builds the pure frame
// (model/build.ts) and draws it through its layout (layout.ts) or, for a host, its detail view
// (model/detail.ts, detail-view.ts); keys and mouse (input.ts) and the menu and its modals (menu.ts)
// act on it as their Board, with blessed handed over.
// blessed and blessed-contrib are external to the bundle and loaded only by `dogsled sidebar`: of
// blessed the four widgets the board uses (its index loads all thirty-four), of blessed-contrib
// only by a widget's module path, never the package index, which loads every widget (the map,
// markdown, a file watcher) and would cost a few hundred milliseconds of start-up: the sparkline's
// renderer at start (resolved from its widget, whose module loads all of blessed), the line chart
// the first time a detail view opens.

import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type blessed from 'blessed';
import { type HistoryPoint, SamplesHistory } from '../service/actions/samples-history.js';
import { drawsMoreColours, drawsUnicode } from '../service/actions/sidebar.js';
import { readSidebarState, sidebarReads } from '../service/actions/sidebar-state.js';
import { cpuMs, mark, span, startedUp } from '../service/actions/timing-marks.js';
import type { HostIO } from '../service/actions/verb-io.js';
import { boardRows } from '../service/core/board/board-rule.js';
import { Actions } from './actions.js';
import { askBackground } from './background.js';
import { type BlessedCache, type BlessedPackage, cacheBlessed } from './blessed-cache.js';
import type { Board } from './board.js';
import { DetailScreen, type LineChart } from './detail-view.js';
import { bindInput } from './input.js';
import { Layout } from './layout.js';
import { Modals } from './menu.js';
import { ansiFrame, LEAVE_SCREEN } from './model/ansi-frame.js';
import { agedState, buildSidebar, viewAfterRead } from './model/build.js';
import { CardMemo } from './model/card-memo.js';
import { buildDetail } from './model/detail.js';
import type { SparklineRenderer } from './model/spark.js';
import { type Background, backgroundOfColorFgBg, type Theme } from './model/theme.js';
import { type Frame, initialView, type Segment, type SidebarState, type ViewState } from './model/types.js';
import { loadTheme, type ThemeFiles } from './theme-file.js';
import { sidebarTargets, type Watching, watchState } from './watch.js';

const MESSAGE_MS = 6_000;
/** Changes this close together cost one read (a service tick writes host.json and samples.jsonl). */
const DEBOUNCE_MS = 15;
/** The poll fallback, and how often ages move on the screen. */
const POLL_MS = 120_000;
/** How often ages move on the screen: a redraw without reading. */
const TICK_MS = 30_000;

/** Milliseconds on a monotonic clock, for spans: node:perf_hooks' performance.now() costs its load. */
function nowMs(): number {
  return process.uptime() * 1000;
}

/**
 * The part of blessed the board uses, each widget by its module (blessed's index loads every one),
 * shaped as the package: screen, box, list (the menu), textbox (a message), escape, colors.
 */
function loadTui(): typeof blessed {
  // `require`: the CommonJS wrapper's in the hot bundle, the banner's in an ES module chunk.
  const lib = (name: string) => require(`blessed/lib/${name}`);
  return {
    screen: lib('widgets/screen'),
    box: lib('widgets/box'),
    // The menu's and the message's widgets, loaded when one first opens: not on the first paint.
    get list() {
      return lib('widgets/list');
    },
    get textbox() {
      return lib('widgets/textbox');
    },
    escape: lib('helpers').escape,
    colors: lib('colors'),
  } as unknown as typeof blessed;
}

/** Where blessed is and which version, for its code cache (blessed-cache.ts). */
function blessedPackage(): BlessedPackage {
  const manifest = require.resolve('blessed/package.json');
  const { version } = require(manifest) as { version?: string };
  return { root: dirname(manifest), version: version ?? '?' };
}

export interface SidebarOptions {
  /** This host's IO: its state, its policy, and the environment and home Herdr is found with. */
  io: HostIO;
  owner: string;
  /** The dogsled entry (process.argv[1]) that stop and cancel run. */
  entry: string;
  fixtureHosts?: string | undefined;
  /** The poll fallback and the bound on the background question (tests only; else the defaults). */
  pollMs?: number | undefined;
  backgroundMs?: number | undefined;
  /** The first read, started by the command while this module loads. */
  firstRead?: Promise<SidebarState> | undefined;
  /** Tests: how long blessed waits after the frame written ahead of it (to compare the two). */
  holdMs?: number | undefined;
  /** dogsled's theme.toml and Herdr's config.toml. */
  themeFiles: ThemeFiles;
  noColor: boolean;
}

/** A widget's module, resolved from blessed-contrib so it is the one it ships whatever npm hoisted. */
function contrib<T>(module: string, pick: (widget: string, load: NodeJS.Require) => T): T | null {
  try {
    return pick(require.resolve(module), require);
  } catch {
    return null;
  }
}

/**
 * The sparkline renderer blessed-contrib's Sparkline widget draws with, from beside that widget (the
 * widget itself is not loaded: it loads all of blessed); null: the cells stay blank.
 */
function contribSparkline(): SparklineRenderer | null {
  return contrib('blessed-contrib/lib/widget/sparkline.js', (widget) => {
    return createRequire(widget)('sparkline') as SparklineRenderer;
  });
}

/** blessed-contrib's line chart, for the detail view; null: its numbers are shown as text. */
function contribLine(): LineChart | null {
  return contrib('blessed-contrib/lib/widget/charts/line.js', (widget, load) => load(widget) as LineChart);
}

/**
 * blessed computes its 8-colour table by matching every 256-colour entry against the first eight,
 * and its match cache keeps those answers: an exact xterm-256 colour (the default themes' colours)
 * would then be drawn as its 8-colour neighbour. The cache is only a memo; emptied, it is rebuilt.
 */
function forgetEightColourMatches(tui: typeof blessed): void {
  (tui.colors as unknown as { _cache: Record<number, number> })._cache = {};
}

/** blessed's colour matcher, which the frame written ahead uses so a colour lands where blessed's does. */
function blessedColours(): { convert(colour: string): number } {
  const colours = require('blessed/lib/colors');
  colours._cache = {};
  return colours;
}

/** The first frame, written before blessed loads (model/ansi-frame.ts), and what the app starts from. */
interface AheadFrame {
  state: SidebarState;
  view: ViewState;
  background: Background | null;
  theme: Theme;
  cards: CardMemo;
  sparkline: SparklineRenderer | null;
}

/** `sidebar first frame` and the CPU the process had used by then, for benchmarks. */
function firstFrameMarks(): void {
  mark('sidebar first frame');
  // CPU is what a benchmark can compare on a busy machine, where the wall time waits for a core.
  const cpu = process.cpuUsage();
  span('sidebar first frame cpu', (cpu.user + cpu.system) / 1000);
}

/**
 * The board drawn straight to the terminal as soon as the first read is in, while blessed has yet to
 * load (about half of a start): undefined, and blessed draws the first frame, when the read failed,
 * the size is unknown, the locale is not UTF-8, or blessed would draw fewer than 256 colours, which
 * only it knows how to reduce to. Raw input from here on: keys pressed before blessed listens wait
 * for it, unechoed.
 */
async function paintAhead(options: SidebarOptions): Promise<AheadFrame | undefined> {
  const state = await options.firstRead?.catch(() => undefined);
  const width = process.stdout.columns;
  const height = process.stdout.rows;
  if (!state || !width || !height) return undefined;
  const background = backgroundOfColorFgBg(options.io.env.COLORFGBG);
  const theme = loadTheme(options.themeFiles, options.noColor, background);
  if (!drawsUnicode(options.io.env) || (!theme.mono && !drawsMoreColours(options.io.env))) return undefined;
  try {
    const view = viewAfterRead(state, initialView());
    const cards = new CardMemo();
    const frame = buildSidebar(state, view, options.io.now(), width, height, cards);
    const sparkline = contribSparkline();
    const colours = blessedColours();
    const text = ansiFrame(frame, view, {
      theme,
      sparkline,
      colourIndex: (colour) => colours.convert(colour),
    });
    process.stdin.setRawMode(true);
    writeSync(1, text);
    firstFrameMarks();
    return { state, view, background, theme, cards, sparkline };
  } catch {
    // A frame that could not be built or written whole: blessed's takes the screen over as ever.
    return undefined;
  }
}

function frameText(frame: Frame): string {
  return frame.panels
    .map((panel) => panel.lines.map((line) => line.segments.map((s) => s.text).join('')).join('\n'))
    .join('\n');
}

export async function runSidebar(options: SidebarOptions): Promise<number> {
  // Before blessed's first module loads: every one of them is compiled through it.
  const cache = cacheBlessed(options.io.paths.dir, options.io.env, blessedPackage);
  const ahead = await paintAhead(options);
  if (ahead && options.holdMs) await new Promise((resolve) => setTimeout(resolve, options.holdMs));
  return new Promise((resolve, reject) => {
    let app: SidebarApp;
    try {
      app = new SidebarApp(options, cache, ahead, () => resolve(0));
    } catch (error) {
      // blessed never took the screen over: the shell gets its own back.
      if (ahead) writeSync(1, LEAVE_SCREEN);
      reject(error);
      return;
    }
    app.start().catch(() => resolve(0));
  });
}

class SidebarApp implements Board {
  readonly tui = loadTui();
  readonly screen: blessed.Widgets.Screen;
  readonly actions: Actions;
  state: SidebarState | undefined;
  view: ViewState;
  frame: Frame | undefined;
  private readonly layout: Layout;
  private readonly modals = new Modals(this);
  /** The cards of the last read, so a redraw without a read builds only those whose age reads anew. */
  private readonly cards: CardMemo;
  private reloading: Promise<void> | undefined;
  private again = false;
  private messageTimer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private watching: Watching | undefined;
  private closing = false;
  private drawn = false;
  /** The text of the frame last drawn, so the age tick draws only when an age reads differently. */
  private drawnText = '';
  private background: Background | null;
  private detail: DetailScreen | undefined;
  private chart: LineChart | null | undefined;
  private history: SamplesHistory | undefined;
  /** The detail view's samples: null for a peer's host, undefined while they are read. */
  private points: HistoryPoint[] | null | undefined;

  constructor(
    private readonly options: SidebarOptions,
    private readonly cache: BlessedCache,
    /** The first frame, already on the screen: blessed draws it again as it takes the screen over. */
    private readonly ahead: AheadFrame | undefined,
    private readonly done: () => void,
  ) {
    forgetEightColourMatches(this.tui);
    this.cards = ahead?.cards ?? new CardMemo();
    this.state = ahead?.state;
    this.view = ahead?.view ?? initialView();
    this.actions = new Actions({ ...options.io, entry: options.entry });
    this.screen = this.tui.screen({ smartCSR: true, fullUnicode: true, warnings: false, title: 'dogsled' });
    const tput = this.screen.tput as unknown as { colors: number };
    if (tput.colors < 256 && drawsMoreColours(options.io.env)) tput.colors = 256;
    this.background = ahead ? ahead.background : backgroundOfColorFgBg(options.io.env.COLORFGBG);
    this.layout = new Layout(
      this.tui,
      this.screen,
      ahead?.theme ?? this.theme(),
      ahead ? ahead.sparkline : contribSparkline(),
    );
    mark('sidebar screen');
  }

  private theme() {
    return loadTheme(this.options.themeFiles, this.options.noColor, this.background);
  }

  async start(): Promise<void> {
    bindInput(this, this.modals, () => this.quit());
    this.screen.on('resize', () => this.render());
    if (!this.options.noColor) {
      askBackground(
        process.stdin,
        process.stdout,
        (background) => {
          this.background = background;
          this.layout.theme = this.theme();
          this.render();
        },
        this.options.backgroundMs,
      );
    }
    // Drawn in the tick that made the screen: blessed's clearing and this frame leave in one write, so
    // the frame written ahead is never seen blank.
    if (this.ahead) this.render();
    else await this.reload(this.options.firstRead);
    // Ages move on by redrawing alone; a read happens when a file changes (and at the slow poll).
    this.ticker = setInterval(() => this.render(true), TICK_MS);
    this.ticker.unref();
    // chokidar is loaded once the board is on the screen: its load never delays the first frame.
    const { io, owner, themeFiles, fixtureHosts } = this.options;
    const reads = sidebarReads(io.paths, owner);
    const targets = sidebarTargets(reads, [themeFiles.own, themeFiles.herdr], fixtureHosts);
    const refresh = () => {
      this.layout.theme = this.theme();
      return this.reload();
    };
    const watching = await watchState(targets, () => void refresh(), {
      debounceMs: DEBOUNCE_MS,
      pollMs: this.options.pollMs ?? POLL_MS,
    }).catch(() => undefined);
    if (this.closing) {
      await watching?.close();
      return;
    }
    this.watching = watching;
    mark('sidebar watching');
    // What changed between the first read and the watch being in place is read now.
    await refresh();
  }

  /** The job records of the board's live jobs, which change when a job starts or ends. */
  private followJobs(): void {
    if (!this.watching || !this.state?.board) return;
    const jobs = boardRows(this.state.board)
      .filter((row) => row.kind === 'job' && row.job !== null && row.group === 'running')
      .map((row) => join(this.options.io.paths.jobs, `${row.job}.json`));
    this.watching.follow(jobs);
  }

  /** One read at a time; a change during a read asks for one more. `first`: a read already begun. */
  reload(first?: Promise<SidebarState>): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      let begun = first;
      do {
        this.again = false;
        const { io, owner, fixtureHosts } = this.options;
        const began = nowMs();
        this.state = await (begun ?? readSidebarState(io, { owner, fixtureHosts }));
        begun = undefined;
        if (this.view.detail) await this.readHistory();
        span('sidebar read', nowMs() - began);
        this.view = viewAfterRead(this.state, this.view);
        this.followJobs();
        this.render();
      } while (this.again);
    })().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  /** The detail view's host's samples: this host's samples.jsonl; a peer's stay on that host. */
  private async readHistory(): Promise<void> {
    const host = this.state?.hosts.find((h) => h.id === this.view.detail?.host);
    if (!host?.local) {
      this.points = null;
      return;
    }
    this.history ??= new SamplesHistory(this.options.io.paths.samples);
    this.points = await this.history.read(this.options.io.now());
  }

  /** Draws the board; `unlessSame` (the age tick): not when its text would not change. */
  render(unlessSame = false): void {
    if (!this.state) return;
    const began = nowMs();
    const cpu = cpuMs();
    const width = Number(this.screen.width);
    const height = Number(this.screen.height);
    const frame = buildSidebar(this.state, this.view, this.options.io.now(), width, height, this.cards);
    const text = frameText(frame);
    if (unlessSame && !this.view.detail && text === this.drawnText) {
      span('sidebar tick unchanged cpu', cpuMs() - cpu);
      return;
    }
    this.frame = frame;
    this.drawnText = text;
    this.layout.paint(this.frame, this.view);
    this.paintDetail(width, height);
    this.screen.render();
    span('sidebar render', nowMs() - began);
    // CPU, which a loaded machine does not stretch as it stretches the wall time above.
    span('sidebar render cpu', cpuMs() - cpu);
    if (!this.drawn) {
      if (!this.ahead) firstFrameMarks();
      mark('sidebar interactive');
      const cpu = process.cpuUsage();
      span('sidebar interactive cpu', (cpu.user + cpu.system) / 1000);
      startedUp();
      // After the frame, so the functions the paint ran are in the cache too.
      setImmediate(() => void this.cache.remember());
    }
    this.drawn = true;
  }

  private paintDetail(width: number, height: number): void {
    const open = this.view.detail;
    const now = this.options.io.now();
    const hosts = this.state ? agedState(this.state, now).hosts : [];
    const host = open ? hosts.find((h) => h.id === open.host) : undefined;
    if (!open || !host) {
      this.detail?.destroy();
      this.detail = undefined;
      return;
    }
    if (this.chart === undefined) this.chart = contribLine();
    this.detail ??= new DetailScreen(
      this.tui,
      this.screen,
      this.chart,
      (segments) => this.layout.tagged(segments),
      (role) => this.colour(role),
    );
    this.detail.paint(buildDetail(host, open, this.points, now, width, height));
  }

  colour(role: Segment['fg']): string | undefined {
    return this.layout.colour(role);
  }

  setView(view: ViewState): void {
    const opened = view.detail !== null && view.detail.host !== this.view.detail?.host;
    this.view = view;
    if (opened) {
      this.points = undefined;
      this.history = undefined;
      void this.readHistory().then(() => this.render());
    }
    this.render();
  }

  say(message: string): void {
    if (this.messageTimer) clearTimeout(this.messageTimer);
    this.setView({ ...this.view, message });
    this.messageTimer = setTimeout(() => this.setView({ ...this.view, message: null }), MESSAGE_MS);
    this.messageTimer.unref();
  }

  private quit(): void {
    this.closing = true;
    if (this.ticker) clearInterval(this.ticker);
    void this.watching?.close();
    if (this.messageTimer) clearTimeout(this.messageTimer);
    this.screen.destroy();
    this.done();
  }
}
