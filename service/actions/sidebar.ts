// What `sidebar` needs before it draws (the app itself is sidebar/app.ts, a front end of its own):
// whose board it shows (the owner given, else $DOGSLED_OWNER that `board --open` sets on the pane it
// docks, else the pane a Herdr plugin pane was opened beside) and Herdr's config file, which it
// watches for the user's theme.

import { DogsledError } from '../core/common/errors.js';
import { pluginContextPane } from '../terminal/herdr/herdr-env.js';

export { herdrConfigPath } from '../terminal/herdr/herdr-env.js';

export function sidebarOwner(env: NodeJS.ProcessEnv, owner: string | undefined): string {
  const found = owner || env.DOGSLED_OWNER || pluginContextPane(env);
  if (!found) throw new DogsledError('no owner: give --owner PANE (board --open sets it)');
  return found;
}
