// Reads the sidebar's theme files: dogsled's own theme.toml (beside config.toml) and Herdr's
// config.toml (CONTRACT §7: no API returns Herdr's palette, so the file is parsed), both watched by
// the app. A missing, unreadable, oversized or malformed file counts as absent, never an error:
// colours are not worth a failed board. With neither naming a theme, the terminal's background picks
// dark or light (model/theme.ts).

import { readFileSync, statSync } from 'node:fs';
import { parse } from 'smol-toml';
import { type Background, type Theme, themeOf } from './model/theme.js';

/** A file larger than this is not a theme: it is ignored. */
const CONFIG_MAX_BYTES = 1024 * 1024;

export interface ThemeFiles {
  /** Herdr's config.toml. */
  herdr: string;
  /** dogsled's theme.toml, whose `[theme]` wins over Herdr's. */
  own: string;
}

function parsed(path: string): unknown {
  try {
    const info = statSync(path);
    // Only a regular file: a FIFO here must never block the board.
    if (!info.isFile() || info.size > CONFIG_MAX_BYTES) return undefined;
    return parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

export function loadTheme(files: ThemeFiles, noColor: boolean, background: Background | null): Theme {
  if (noColor) return themeOf(undefined, true);
  return themeOf(parsed(files.herdr), false, background, parsed(files.own));
}
