// The sidebar's layout on the screen: the framed panels placed, labelled and filled as the pure frame
// says (model/build.ts; a panel it leaves out is hidden), the message line under them, and segments
// turned into blessed tags in the theme's colours (sparkline cells drawn with blessed-contrib's
// renderer, app.ts's to load).

import type { Screen, Tui } from './board.js';
import { drawSpark, type SparklineRenderer } from './model/spark.js';
import { roleColour, segmentStyle, type Theme } from './model/theme.js';
import type { Frame, PanelId, Segment, ViewState } from './model/types.js';

type Box = ReturnType<Tui['box']>;

export class Layout {
  private readonly boxes: Record<PanelId, Box>;
  private readonly messageBox: Box;

  constructor(
    private readonly tui: Tui,
    screen: Screen,
    /** Replaced when Herdr's config changes. */
    public theme: Theme,
    private readonly sparkline: SparklineRenderer | null,
  ) {
    // Hidden until a frame shows them: hiding a box never drawn clears the screen's whole region.
    const box = () =>
      tui.box({
        parent: screen,
        left: 0,
        width: '100%',
        border: { type: 'line' },
        tags: true,
        wrap: false,
        hidden: true,
      });
    this.boxes = { hosts: box(), work: box(), todos: box() };
    this.messageBox = tui.box({
      parent: screen,
      left: 0,
      width: '100%',
      height: 1,
      bottom: 0,
      tags: true,
      hidden: true,
    });
  }

  /** Puts the frame into the panels and the message line; the caller renders the screen. */
  paint(frame: Frame, view: ViewState): void {
    for (const [id, box] of Object.entries(this.boxes)) {
      if (!frame.panels.some((panel) => panel.id === id)) box.hide();
    }
    for (const panel of frame.panels) {
      const box = this.boxes[panel.id];
      box.show();
      box.top = panel.top;
      box.height = panel.height;
      const focused = view.focus === panel.id;
      box.style.border = { fg: this.colour(focused ? 'accent' : 'surface1') ?? 'default' };
      box.setLabel({
        text: this.tagged([{ text: ` ${panel.title} `, fg: focused ? 'accent' : 'subtext0', bold: focused }]),
        side: 'left',
      });
      box.setContent(panel.lines.map((line) => this.tagged(line.segments)).join('\n'));
    }
    if (frame.message.length > 0) {
      this.messageBox.height = frame.message.length;
      this.messageBox.setContent(
        frame.message.map((line) => this.tagged([{ text: line, fg: 'teal' }])).join('\n'),
      );
      this.messageBox.show();
    } else this.messageBox.hide();
  }

  colour(role: Segment['fg']): string | undefined {
    return roleColour(this.theme, role);
  }

  /** Segments as blessed tags, in the theme's colours. */
  tagged(segments: readonly Segment[]): string {
    return segments
      .map((s) => {
        const style = segmentStyle(this.theme, s);
        let open = '';
        if (style.fg) open += `{${style.fg}-fg}`;
        if (style.bg) open += `{${style.bg}-bg}`;
        if (style.bold) open += '{bold}';
        if (style.inverse) open += '{inverse}';
        const drawn = s.spark && s.spark.length === s.text.length ? drawSpark(this.sparkline, s.spark) : null;
        const text = this.tui.escape(drawn ?? s.text);
        return open ? `${open}${text}{/}` : text;
      })
      .join('');
  }
}
