// What `sidebar` needs before it draws (the app itself is sidebar/app.ts, a front end of its own):
// whose board it shows (the owner given, else $DOGSLED_OWNER that `board --open` sets on the pane it
// docks, else the pane a Herdr plugin pane was opened beside) and Herdr's config file, which it
// watches for the user's theme, and whether the terminal it draws in shows 256 colours.

import { DogsledError } from '../core/common/errors.js';
import { hookPane, pluginContextPane } from '../terminal/herdr/herdr-env.js';

export { herdrConfigPath } from '../terminal/herdr/herdr-env.js';

export function sidebarOwner(env: NodeJS.ProcessEnv, owner: string | undefined): string {
  const found = owner || env.DOGSLED_OWNER || pluginContextPane(env);
  if (!found) throw new DogsledError('no owner: give --owner PANE (board --open sets it)');
  return found;
}

/**
 * Terminals inside tmux or Herdr, or that say so, draw 256 colours (tmux maps them for a client that
 * cannot) even where terminfo says 8 (TERM=screen): blessed would reduce every colour to 8 there.
 */
export function drawsMoreColours(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.TMUX || env.COLORTERM || /256|direct|truecolor/.test(env.TERM ?? '') || hookPane(env));
}

/**
 * Whether the terminal takes UTF-8, as blessed judges it (its tput's detectUnicode: the locale
 * variables): the frame written ahead of blessed draws its borders and marks in UTF-8, which blessed
 * draws in the terminal's line-drawing set or its fallbacks where the locale is not UTF-8.
 */
export function drawsUnicode(env: NodeJS.ProcessEnv): boolean {
  return /utf-?8/i.test(`${env.LANG}:${env.LANGUAGE}:${env.LC_ALL}:${env.LC_CTYPE}`);
}
