// Colours from Herdr's `[theme]` (CONTRACT §7): catppuccin and catppuccin-latte exactly, with
// `[theme.custom]` overrides and the legacy `[ui] accent`; every other theme name uses the
// terminal's own ANSI palette (Herdr's `terminal` row), since its colours are the user's. NO_COLOR
// gives no colours at all. Pure: the app parses config.toml and hands the object in.

import type { Role } from './types.js';

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

const ALIASES: Record<string, string> = {
  'catppuccin-mocha': 'catppuccin',
  mocha: 'catppuccin',
  latte: 'catppuccin-latte',
  light: 'catppuccin-latte',
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

/** The theme of a parsed Herdr config.toml (undefined: no config, Herdr's default catppuccin). */
export function themeOf(config: unknown, noColor: boolean): Theme {
  const none = palette([]);
  if (noColor) return { name: 'none', mono: true, palette: none };
  const root = table(config);
  const theme = table(root.theme);
  const wanted = typeof theme.name === 'string' ? normaliseName(theme.name) : 'catppuccin';
  const base = wanted === 'catppuccin' ? CATPPUCCIN : wanted === 'catppuccin-latte' ? LATTE : TERMINAL;
  const name = base === TERMINAL ? 'terminal' : wanted;
  const colours: Palette = { ...base };
  const custom = table(theme.custom);
  for (const role of ROLES) {
    const value = custom[role];
    if (typeof value === 'string') colours[role] = parseColour(value);
  }
  const legacy = table(root.ui).accent;
  if (custom.accent === undefined && typeof legacy === 'string' && legacy.trim().toLowerCase() !== 'cyan') {
    colours.accent = parseColour(legacy);
  }
  return { name, mono: false, palette: colours };
}

/** Herdr's ANSI names (ratatui's) as blessed spells them; hex colours pass through. */
export function blessedColour(colour: Colour): string | undefined {
  if (colour === null) return undefined;
  const names: Record<string, string> = { gray: 'white', darkgray: 'gray', white: 'lightwhite' };
  return names[colour] ?? colour;
}
