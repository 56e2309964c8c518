// The host detail view on the screen: one framed box over the panels holding the pure DetailFrame
// (model/detail.ts): its fixed text, a title line and a blessed-contrib line chart per series, and
// the scrolled text under them. The chart widget comes from app.ts, which loads blessed-contrib's
// line chart by its module path the first time the view opens; charts are made anew on each paint
// (their canvas is sized when they are attached), which a refresh every few seconds affords.

import type { Screen, Tui } from './board.js';
import type { DetailFrame } from './model/detail.js';
import type { Line, Segment } from './model/types.js';

type Box = ReturnType<Tui['box']>;

/** blessed-contrib's `line(options)`: a box with `setData([{ title, x, y, style }])` once attached. */
export type LineChart = (options: Record<string, unknown>) => Box & {
  setData(data: Array<{ title: string; x: string[]; y: number[] }>): void;
  render(): unknown;
};

/** Segments as blessed tags, in the theme's colours (layout.ts). */
export type Tagger = (segments: readonly Segment[]) => string;

/** A theme colour as drawille's canvas takes it: `[r, g, b]` for a hex colour, else its default. */
function canvasColour(colour: string | undefined): [number, number, number] | 'normal' {
  const hex = colour === undefined ? null : /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  if (!hex) return 'normal';
  return [1, 2, 3].map((i) => Number.parseInt(hex[i] as string, 16)) as [number, number, number];
}

export class DetailScreen {
  private readonly frame: Box;
  private readonly head: Box;
  private readonly body: Box;
  private charts: Box[] = [];

  constructor(
    private readonly tui: Tui,
    screen: Screen,
    private readonly chart: LineChart | null,
    private readonly tag: Tagger,
    private readonly colour: (role: Segment['fg']) => string | undefined,
  ) {
    this.frame = tui.box({
      parent: screen,
      top: 0,
      left: 0,
      width: '100%',
      height: '100%',
      border: { type: 'line' },
      tags: true,
    });
    const text = () => tui.box({ parent: this.frame, left: 0, right: 0, tags: true, wrap: false });
    this.head = text();
    this.body = text();
  }

  paint(detail: DetailFrame): void {
    this.frame.style.border = { fg: this.colour('accent') ?? 'default' };
    this.frame.setLabel({ text: this.tag([{ text: detail.title, fg: 'accent', bold: true }]), side: 'left' });
    this.frame.setFront();
    this.place(this.head, 0, detail.head.length, detail.head);
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
    for (const view of detail.charts) {
      const titled = view.title.length;
      const title = this.tui.box({
        parent: this.frame,
        top: view.top,
        left: 0,
        right: 0,
        height: titled,
        tags: true,
        wrap: false,
        content: view.title.map((line) => this.tag([{ text: line, fg: view.role, bold: true }])).join('\n'),
      });
      this.charts.push(title);
      if (!this.chart || view.height - titled < 3) continue;
      const widget = this.chart({
        top: view.top + titled,
        left: 0,
        width: detail.width - 2,
        height: view.height - titled,
        minY: 0,
        maxY: 100,
        numYLabels: 4,
        wholeNumbersOnly: true,
        xLabelPadding: 3,
        xPadding: 6,
        showLegend: false,
        // The canvas colours each cell itself; with NO_COLOR (no theme colour) it uses the default.
        style: {
          line: canvasColour(this.colour(view.role)),
          text: canvasColour(this.colour('subtext0')),
          baseline: canvasColour(this.colour('overlay0')),
        },
      });
      this.frame.append(widget);
      widget.setData([{ title: view.title.join(' '), x: view.x, y: view.y }]);
      this.charts.push(widget);
    }
    this.place(this.body, detail.bodyTop, detail.bodyHeight, detail.body);
  }

  destroy(): void {
    this.frame.destroy();
  }

  private place(box: Box, top: number, height: number, lines: readonly Line[]): void {
    box.top = top;
    box.height = Math.max(0, height);
    if (height <= 0) box.hide();
    else box.show();
    box.setContent(lines.map((line) => this.tag(line.segments)).join('\n'));
  }
}
