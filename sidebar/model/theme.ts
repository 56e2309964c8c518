// Colours: a `[theme]` names one (dogsled's theme.toml first, then Herdr's config.toml, CONTRACT §7):
// `dogsled-dark` and `dogsled-light` (dogsled's own, from the 256-colour palette), catppuccin and
// catppuccin-latte exactly, with `[theme.custom]` overrides and the legacy `[ui] accent`; any other
// name uses the terminal's own ANSI palette (Herdr's `terminal` row), since its colours are the
// user's. Herdr's `auto_switch` picks `dark_name` or `light_name` by the terminal's background. With
// no name (or `auto`) it is dogsled-dark or dogsled-light by that background, as the terminal
// reports it (OSC 11) or COLORFGBG says, else dark. NO_COLOR gives no colours at all. Pure: the app
// parses the files and asks the terminal, then hands the results in.

import type { Role, Segment } from './types.js';

/** A colour: `#rrggbb`, an ANSI name, or null for the terminal's default. */
export type Colour = string | null;
export type Palette = Record<Role, Colour>;

export interface Theme {
  /** The theme name Herdr would use, normalised; `terminal` for the ANSI palette. */
  name: string;
  /** True when NO_COLOR is set: nothing is coloured, pills and the selection are inverse. */
  mono: boolean;
  palette: Palette;
}

const ROLES: readonly Role[] = [
  'accent',
  'panel_bg',
  'surface0',
  'surface1',
  'surface_dim',
  'overlay0',
  'overlay1',
  'text',
  'subtext0',
  'mauve',
  'green',
  'yellow',
  'red',
  'blue',
  'teal',
  'peach',
];

function palette(values: readonly Colour[]): Palette {
  return Object.fromEntries(ROLES.map((role, i) => [role, values[i] ?? null])) as Palette;
}

/** CONTRACT §7 rows (sidebar_bg, always the terminal default, is left out). */
const CATPPUCCIN = palette(
  '#89b4fa #181825 #313244 #45475a #1e1e2e #6c7086 #7f849c #cdd6f4 #a6adc8 #cba6f7 #a6e3a1 #f9e2af #f38ba8 #89b4fa #94e2d5 #fab387'.split(
    ' ',
  ),
);
const LATTE = palette(
  '#1e66f5 #eff1f5 #ccd0da #bcc0cc #e6e9ef #9ca0b0 #8c8fa1 #4c4f69 #6c6f85 #8839ef #40a02b #df8e1d #d20f39 #1e66f5 #179299 #fe640b'.split(
    ' ',
  ),
);
/** Herdr's `terminal` theme: ANSI names, so the terminal's own palette decides. */
const TERMINAL = palette([
  'blue',
  null,
  null,
  'darkgray',
  'darkgray',
  'gray',
  'white',
  null,
  'gray',
  'gray',
  'green',
  'yellow',
  'lightred',
  'blue',
  'cyan',
  'yellow',
]);

/**
 * dogsled's defaults, each an exact xterm-256 colour (a terminal without truecolor draws it as is):
 * light text and mid-grey frames on a dark background; dark text, grey frames and deep colours on a
 * light one. Pills are drawn in panel_bg on the group's colour, so panel_bg contrasts with all five.
 */
const DARK = palette(
  '#5fafff #1c1c1c #303030 #808080 #262626 #8a8a8a #a8a8a8 #e4e4e4 #bcbcbc #d787ff #87d787 #ffd75f #ff8787 #87afff #5fd7d7 #ffaf5f'.split(
    ' ',
  ),
);
const LIGHT = palette(
  '#005fd7 #ffffff #e4e4e4 #8a8a8a #eeeeee #6c6c6c #585858 #1c1c1c #444444 #8700af #008700 #af5f00 #d70000 #005faf #008787 #d75f00'.split(
    ' ',
  ),
);

export type Background = 'dark' | 'light';

const NAMED: Record<string, Palette> = {
  'dogsled-dark': DARK,
  'dogsled-light': LIGHT,
  catppuccin: CATPPUCCIN,
  'catppuccin-latte': LATTE,
};

const ALIASES: Record<string, string> = {
  'catppuccin-mocha': 'catppuccin',
  mocha: 'catppuccin',
  latte: 'catppuccin-latte',
  light: 'catppuccin-latte',
};

/** A theme's light sibling, for Herdr's `auto_switch` without a `light_name`. */
const LIGHT_OF: Record<string, string> = {
  catppuccin: 'catppuccin-latte',
  'dogsled-dark': 'dogsled-light',
};

const ANSI = new Set([
  'black',
  'red',
  'green',
  'yellow',
  'blue',
  'magenta',
  'purple',
  'cyan',
  'white',
  'gray',
  'grey',
  'darkgray',
  'lightred',
  'lightgreen',
  'lightyellow',
  'lightblue',
  'lightmagenta',
  'lightcyan',
]);

export function normaliseName(name: string): string {
  const plain = name.trim().toLowerCase().replace(/[_ ]/g, '-');
  return ALIASES[plain] ?? plain;
}

/** A `[theme.custom]` value as a colour; unknown names become cyan, as in Herdr. */
export function parseColour(value: string): Colour {
  const text = value.trim().toLowerCase();
  if (['reset', 'default', 'none', 'transparent'].includes(text)) return null;
  if (/^#[0-9a-f]{6}$/.test(text)) return text;
  if (/^#[0-9a-f]{3}$/.test(text)) return `#${[...text.slice(1)].map((c) => c + c).join('')}`;
  const rgb = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/.exec(text);
  if (rgb) {
    const parts = rgb.slice(1, 4).map((n) => Math.min(255, Number(n)));
    return `#${parts.map((n) => n.toString(16).padStart(2, '0')).join('')}`;
  }
  if (ANSI.has(text)) return text === 'purple' ? 'magenta' : text === 'grey' ? 'gray' : text;
  return 'cyan';
}

function table(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The `[theme]` table of a parsed TOML file (Herdr's config.toml or dogsled's theme.toml). */
function themeTable(config: unknown): Record<string, unknown> {
  return table(table(config).theme);
}

/**
 * The theme of parsed config files, first wins for the name and for each custom colour: dogsled's
 * theme.toml, then Herdr's config.toml (undefined: no such file). `background` is what the terminal
 * reported, or null.
 */
export function themeOf(
  config: unknown,
  noColor: boolean,
  background: Background | null = null,
  own: unknown = undefined,
): Theme {
  const none = palette([]);
  if (noColor) return { name: 'none', mono: true, palette: none };
  const mine = themeTable(own);
  const herdr = themeTable(config);
  const chosen =
    chosenName(mine, background) ?? chosenName(herdr, background) ?? `dogsled-${background ?? 'dark'}`;
  const base = NAMED[chosen] ?? TERMINAL;
  const name = base === TERMINAL ? 'terminal' : chosen;
  const colours: Palette = { ...base };
  for (const custom of [table(herdr.custom), table(mine.custom)]) {
    for (const role of ROLES) {
      const value = custom[role];
      if (typeof value === 'string') colours[role] = parseColour(value);
    }
  }
  const legacy = table(table(config).ui).accent;
  const customAccent = table(herdr.custom).accent ?? table(mine.custom).accent;
  if (customAccent === undefined && typeof legacy === 'string' && legacy.trim().toLowerCase() !== 'cyan') {
    colours.accent = parseColour(legacy);
  }
  return { name, mono: false, palette: colours };
}

/** The name a `[theme]` table chooses for this background, or undefined when it names none (`auto`). */
function chosenName(theme: Record<string, unknown>, background: Background | null): string | undefined {
  if (typeof theme.name !== 'string') return undefined;
  const name = normaliseName(theme.name);
  if (name === 'auto') return undefined;
  if (theme.auto_switch !== true || background === null) return name;
  const wanted = background === 'light' ? theme.light_name : theme.dark_name;
  if (typeof wanted === 'string') return normaliseName(wanted);
  return background === 'light' ? (LIGHT_OF[name] ?? name) : name;
}

/**
 * The background of an OSC 11 reply (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB`, 1 to 4 hex digits a channel):
 * light when its relative luminance is over a half; null when it is not such a reply.
 */
export function backgroundOfReply(reply: string): Background | null {
  const match = /\u001b\]11;rgba?:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})/i.exec(reply);
  if (!match) return null;
  const [r, g, b] = match.slice(1, 4).map((hex) => Number.parseInt(hex, 16) / (16 ** hex.length - 1)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 ? 'light' : 'dark';
}

/** COLORFGBG (`fg;bg`, set by rxvt, Konsole and others): light when the background is white (7, 15). */
export function backgroundOfColorFgBg(value: string | undefined): Background | null {
  const bg = value?.split(';').at(-1);
  if (bg === undefined || !/^\d+$/.test(bg)) return null;
  return bg === '7' || bg === '15' ? 'light' : 'dark';
}

/** Herdr's ANSI names (ratatui's) as blessed spells them; hex colours pass through. */
export function blessedColour(colour: Colour): string | undefined {
  if (colour === null) return undefined;
  const names: Record<string, string> = { gray: 'white', darkgray: 'gray', white: 'lightwhite' };
  return names[colour] ?? colour;
}

/** A role's colour as blessed names it; none with no colours (NO_COLOR) or the terminal's default. */
export function roleColour(theme: Theme, role: Role | undefined): string | undefined {
  if (!role || theme.mono) return undefined;
  return blessedColour(theme.palette[role]);
}

/** How a segment is drawn: colours as blessed names them, and its attributes. */
export interface SegmentStyle {
  fg: string | undefined;
  bg: string | undefined;
  bold: boolean;
  /** Only with no colours, where pills and the selection have nothing else to show them by. */
  inverse: boolean;
}

export function segmentStyle(theme: Theme, segment: Segment): SegmentStyle {
  return {
    fg: roleColour(theme, segment.dim ? 'overlay0' : segment.fg),
    bg: roleColour(theme, segment.bg),
    bold: segment.bold === true,
    inverse: segment.inverse === true && theme.mono,
  };
}
