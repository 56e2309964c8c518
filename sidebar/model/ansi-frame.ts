// The board's first frame in the terminal's own escape sequences, written before blessed has loaded
// (app.ts): blessed's modules, program, terminfo and screen are most of a sidebar's start-up, and a
// person waits on the frame, not on them. It draws what layout.ts has blessed draw, cell for cell:
// the framed panels with their labels two cells in, the lines in the theme's colours, the message
// rows at the bottom. blessed then takes the alternate screen it finds, clears it and draws the same
// frame in the same write. Pure: the app hands in the frame, the theme, the sparkline renderer and
// blessed's own colour matcher, so a colour lands on the palette entry blessed would pick.

import { cells, charCells } from './cells.js';
import { drawSpark, type SparklineRenderer } from './spark.js';
import { roleColour, type SegmentStyle, segmentStyle, type Theme } from './theme.js';
import type { Frame, Segment, ViewState } from './types.js';

/** blessed's colour index for a colour it names (a name or `#rrggbb`); 0x1ff: the default. */
export type ColourIndex = (colour: string) => number;

const DEFAULT_COLOUR = 0x1ff;

/** The alternate screen, cleared, the cursor hidden: what blessed's screen starts from too. */
export const ENTER_SCREEN = '\u001b[?1049h\u001b[?25l\u001b[H\u001b[2J';
/** Back to the shell's screen, for a sidebar that stops before blessed has taken over. */
export const LEAVE_SCREEN = '\u001b[?25h\u001b[?1049l';

export interface AnsiFrameOptions {
  theme: Theme;
  sparkline: SparklineRenderer | null;
  colourIndex: ColourIndex;
}

/** The whole screen: ENTER_SCREEN, then every panel and the message, each row placed on its own. */
export function ansiFrame(frame: Frame, view: ViewState, options: AnsiFrameOptions): string {
  const { theme } = options;
  const draw = new Painter(frame.width, frame.height, options.colourIndex);
  for (const panel of frame.panels) {
    const focused = view.focus === panel.id;
    const border: SegmentStyle = {
      fg: roleColour(theme, focused ? 'accent' : 'surface1'),
      bg: undefined,
      bold: false,
      inverse: false,
    };
    const inner = frame.width - 2;
    const bottom = panel.top + panel.height - 1;
    draw.at(panel.top, 0, `┌${'─'.repeat(inner)}┐`, border);
    draw.at(panel.top, 2, ` ${panel.title} `, segmentStyle(theme, labelSegment(focused)));
    for (let row = panel.top + 1; row < bottom; row++) {
      draw.at(row, 0, '│', border);
      const line = panel.lines[row - panel.top - 1];
      if (line) draw.segments(row, 1, line.segments, theme, options.sparkline);
      draw.at(row, frame.width - 1, '│', border);
    }
    draw.at(bottom, 0, `└${'─'.repeat(inner)}┘`, border);
  }
  frame.message.forEach((line, i) => {
    draw.segments(frame.height - frame.message.length + i, 0, [{ text: line, fg: 'teal' }], theme, null);
  });
  return ENTER_SCREEN + draw.text;
}

/** The label's one segment, as layout.ts builds it (the title's text is the caller's). */
function labelSegment(focused: boolean): Segment {
  return { text: '', fg: focused ? 'accent' : 'subtext0', bold: focused };
}

class Painter {
  text = '';

  constructor(
    private readonly width: number,
    private readonly height: number,
    private readonly colourIndex: ColourIndex,
  ) {}

  /** `text` from row, column (0-based), clipped at the screen's edges as blessed clips it. */
  at(row: number, column: number, text: string, style: SegmentStyle): void {
    if (row < 0 || row >= this.height || column >= this.width) return;
    const shown = clip(text, this.width - column);
    if (shown.length === 0) return;
    const open = this.sgr(style);
    this.text += `\u001b[${row + 1};${column + 1}H${open}${shown}${open ? '\u001b[m' : ''}`;
  }

  segments(
    row: number,
    column: number,
    segments: readonly Segment[],
    theme: Theme,
    sparkline: SparklineRenderer | null,
  ): void {
    let x = column;
    for (const segment of segments) {
      const drawn =
        segment.spark && segment.spark.length === segment.text.length
          ? drawSpark(sparkline, segment.spark)
          : null;
      const text = drawn ?? segment.text;
      this.at(row, x, text, segmentStyle(theme, segment));
      x += cells(text);
    }
  }

  /** Each style's rendition, worked out once: a frame has a few dozen cells' worth of styles. */
  private readonly renditions = new Map<string, string>();

  private sgr(style: SegmentStyle): string {
    const key = `${style.fg ?? ''}|${style.bg ?? ''}|${style.bold}|${style.inverse}`;
    let sgr = this.renditions.get(key);
    if (sgr === undefined) {
      sgr = this.rendition(style);
      this.renditions.set(key, sgr);
    }
    return sgr;
  }

  /** screen.codeAttr's select graphic rendition on a 256-colour terminal; '' for the default. */
  private rendition(style: SegmentStyle): string {
    const codes: string[] = [];
    if (style.bold) codes.push('1');
    if (style.inverse) codes.push('7');
    const bg = this.index(style.bg);
    if (bg !== DEFAULT_COLOUR) codes.push(bg < 8 ? `${40 + bg}` : bg < 16 ? `${100 + bg - 8}` : `48;5;${bg}`);
    const fg = this.index(style.fg);
    if (fg !== DEFAULT_COLOUR) codes.push(fg < 8 ? `${30 + fg}` : fg < 16 ? `${90 + fg - 8}` : `38;5;${fg}`);
    return codes.length > 0 ? `\u001b[${codes.join(';')}m` : '';
  }

  private index(colour: string | undefined): number {
    if (colour === undefined) return DEFAULT_COLOUR;
    const index = this.colourIndex(colour);
    return index >= 0 && index < 256 ? index : DEFAULT_COLOUR;
  }
}

/** At most `width` cells of `text`, never half of a wide character. */
function clip(text: string, width: number): string {
  if (cells(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    used += charCells(char);
    if (used > width) break;
    out += char;
  }
  return out;
}
