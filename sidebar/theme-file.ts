// Reads Herdr's config.toml for the sidebar's theme (CONTRACT §7: no API returns the palette, so
// the file is parsed, and watched by the app since Herdr has no change event). A missing, unreadable
// or malformed file is Herdr's default theme, never an error: colours are not worth a failed board.

import { readFileSync, statSync } from 'node:fs';
import { parse } from 'smol-toml';
import { type Theme, themeOf } from './model/theme.js';

/** A config larger than this is not Herdr's: the default theme is used. */
const CONFIG_MAX_BYTES = 1024 * 1024;

export function loadTheme(path: string, noColor: boolean): Theme {
  if (noColor) return themeOf(undefined, true);
  try {
    const info = statSync(path);
    // Only a regular file: a FIFO here must never block the board.
    if (!info.isFile() || info.size > CONFIG_MAX_BYTES) return themeOf(undefined, false);
    return themeOf(parse(readFileSync(path, 'utf8')), false);
  } catch {
    return themeOf(undefined, false);
  }
}
