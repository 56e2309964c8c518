import { describe, expect, it } from 'vitest';
import {
  backgroundOfColorFgBg,
  backgroundOfReply,
  blessedColour,
  normaliseName,
  parseColour,
  themeOf,
} from '../../../sidebar/model/theme.js';

/** The xterm-256 palette's colour at `index` (6x6x6 cube and grays), as `#rrggbb`. */
function xterm(index: number): string {
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  if (index >= 232) {
    const v = 8 + 10 * (index - 232);
    return `#${hex(v)}${hex(v)}${hex(v)}`;
  }
  const levels = [0, 95, 135, 175, 215, 255];
  const i = index - 16;
  return `#${hex(levels[Math.floor(i / 36)] as number)}${hex(levels[Math.floor(i / 6) % 6] as number)}${hex(levels[i % 6] as number)}`;
}

describe('the default themes: 256 colours, dark or light by the terminal', () => {
  it('uses dogsled-dark without a theme named, dogsled-light on a light background', () => {
    const dark = themeOf(undefined, false);
    expect(dark).toMatchObject({ name: 'dogsled-dark', mono: false });
    const light = themeOf(undefined, false, 'light');
    expect(light).toMatchObject({ name: 'dogsled-light', mono: false });
    expect(themeOf({ theme: { name: 'auto' } }, false, 'light').name).toBe('dogsled-light');
    // Light text on dark, dark text on light.
    expect(dark.palette.text).toBe(xterm(254));
    expect(light.palette.text).toBe(xterm(234));
  });

  it('draws every colour of both defaults from the xterm-256 palette, so a 256-colour terminal shows it exactly', () => {
    const palette = new Set(Array.from({ length: 240 }, (_, i) => xterm(i + 16)));
    for (const background of ['dark', 'light'] as const) {
      for (const colour of Object.values(themeOf(undefined, false, background).palette)) {
        expect(palette.has(colour as string)).toBe(true);
      }
    }
  });

  it('reads the background from an OSC 11 reply, in any digit count and either terminator', () => {
    expect(backgroundOfReply('\u001b]11;rgb:ffff/ffff/ffff\u001b\\')).toBe('light');
    expect(backgroundOfReply('\u001b]11;rgb:0000/0000/0000\u0007')).toBe('dark');
    expect(backgroundOfReply('\u001b]11;rgb:1e/1e/2e\u0007')).toBe('dark');
    expect(backgroundOfReply('\u001b]11;rgb:fdf6/e3e3/d5d5\u0007')).toBe('light');
    expect(backgroundOfReply('\u001b]11;rgba:f/f/f/f\u0007')).toBe('light');
    expect(backgroundOfReply('\u001b]10;rgb:ffff/ffff/ffff\u0007')).toBeNull();
    expect(backgroundOfReply('garbage')).toBeNull();
  });

  it('reads the background from COLORFGBG when the terminal sets it', () => {
    expect(backgroundOfColorFgBg('15;0')).toBe('dark');
    expect(backgroundOfColorFgBg('0;15')).toBe('light');
    expect(backgroundOfColorFgBg('0;default;7')).toBe('light');
    expect(backgroundOfColorFgBg(undefined)).toBeNull();
    expect(backgroundOfColorFgBg('x')).toBeNull();
  });

  it("lets dogsled's theme.toml override Herdr's, name and custom colours alike", () => {
    const herdr = { theme: { name: 'catppuccin', custom: { red: '#111111', green: '#222222' } } };
    const own = { theme: { name: 'dogsled-light', custom: { red: '#333333' } } };
    const theme = themeOf(herdr, false, 'dark', own);
    expect(theme.name).toBe('dogsled-light');
    expect(theme.palette.red).toBe('#333333');
    expect(theme.palette.green).toBe('#222222');
    // theme.toml without a name leaves Herdr's.
    expect(themeOf(herdr, false, 'dark', { theme: { custom: {} } }).name).toBe('catppuccin');
  });

  it("follows Herdr's auto_switch: dark_name or light_name (else the light sibling) by the background", () => {
    const config = { theme: { name: 'catppuccin', auto_switch: true } };
    expect(themeOf(config, false, 'light').name).toBe('catppuccin-latte');
    expect(themeOf(config, false, 'dark').name).toBe('catppuccin');
    expect(themeOf(config, false, null).name).toBe('catppuccin');
    const named = { theme: { name: 'catppuccin', auto_switch: true, light_name: 'dogsled-light' } };
    expect(themeOf(named, false, 'light').name).toBe('dogsled-light');
  });
});

describe("the sidebar's colours from Herdr's [theme]", () => {
  it('uses catppuccin when Herdr names it', () => {
    const theme = themeOf({ theme: { name: 'catppuccin' } }, false);
    expect(theme).toMatchObject({ name: 'catppuccin', mono: false });
    expect(theme.palette.accent).toBe('#89b4fa');
    expect(theme.palette.red).toBe('#f38ba8');
  });

  it('uses catppuccin-latte exactly, under its aliases too', () => {
    for (const name of ['catppuccin-latte', 'Catppuccin_Latte', 'latte', 'light']) {
      const theme = themeOf({ theme: { name } }, false);
      expect(theme.name).toBe('catppuccin-latte');
      expect(theme.palette.accent).toBe('#1e66f5');
      expect(theme.palette.text).toBe('#4c4f69');
    }
    expect(normaliseName('catppuccin mocha')).toBe('catppuccin');
  });

  it("maps every other theme name to the terminal's ANSI palette", () => {
    for (const name of ['tokyo-night', 'gruvbox', 'no-such-theme']) {
      const theme = themeOf({ theme: { name } }, false);
      expect(theme.name).toBe('terminal');
      expect(theme.palette.accent).toBe('blue');
      expect(theme.palette.text).toBeNull();
    }
  });

  it('applies [theme.custom] overrides in every spelling Herdr takes', () => {
    const theme = themeOf(
      {
        theme: {
          name: 'catppuccin',
          custom: {
            accent: '#abc',
            red: 'rgb(255, 0, 16)',
            green: 'lightgreen',
            text: 'reset',
            blue: 'chartreuse',
          },
        },
      },
      false,
    );
    expect(theme.palette).toMatchObject({
      accent: '#aabbcc',
      red: '#ff0010',
      green: 'lightgreen',
      text: null,
      blue: 'cyan',
      yellow: '#f9e2af',
    });
    expect(parseColour('Purple')).toBe('magenta');
    expect(parseColour('grey')).toBe('gray');
  });

  it('honours the legacy [ui] accent unless theme.custom sets one, and ignores its default cyan', () => {
    expect(themeOf({ ui: { accent: 'red' } }, false).palette.accent).toBe('red');
    expect(themeOf({ ui: { accent: 'cyan' } }, false).palette.accent).toBe(xterm(75));
    expect(
      themeOf({ ui: { accent: 'red' }, theme: { custom: { accent: '#000000' } } }, false).palette.accent,
    ).toBe('#000000');
  });

  it('has no colours at all with NO_COLOR', () => {
    const theme = themeOf({ theme: { name: 'catppuccin-latte' } }, true);
    expect(theme.mono).toBe(true);
    expect(Object.values(theme.palette).every((colour) => colour === null)).toBe(true);
  });

  it("spells Herdr's ANSI grays as blessed knows them", () => {
    expect(blessedColour('gray')).toBe('white');
    expect(blessedColour('darkgray')).toBe('gray');
    expect(blessedColour('white')).toBe('lightwhite');
    expect(blessedColour('#89b4fa')).toBe('#89b4fa');
    expect(blessedColour(null)).toBeUndefined();
  });
});
