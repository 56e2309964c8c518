import { describe, expect, it } from 'vitest';
import { blessedColour, normaliseName, parseColour, themeOf } from '../../../sidebar/model/theme.js';

describe("the sidebar's colours from Herdr's [theme]", () => {
  it("uses catppuccin without a config, Herdr's default", () => {
    const theme = themeOf(undefined, false);
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
    expect(themeOf({ ui: { accent: 'cyan' } }, false).palette.accent).toBe('#89b4fa');
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
