// `dogsled host whereis TARGET`: the agents and panes a name or pane id names on this host (an agent's
// Herdr name, an open child's or tracked pane's name, a pane id), for a `send` on another host that
// looks for its target across the fleet before it writes anything.

import { DogsledError } from '../core/common/errors.js';
import { targetsOnThisHost } from '../inbox/send-targets.js';
import type { VerbIO, VerbResult } from './verb-table.js';

export async function whereisVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const [target, ...rest] = args;
  if (target === undefined || rest.length > 0) throw new DogsledError('host whereis: takes one target');
  return { value: { matches: await targetsOnThisHost(io, target) } };
}
