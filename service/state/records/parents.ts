// parents.json: the children on this host whose owner is on another host, keyed by the child's
// terminal (spec: "parents.json identifies tracked children on their own host"). `host agent` links
// a child once its pane exists; the owner forwarding drops the link once the child's close reached
// the owner's outbox. The watchdog reads it: such a child is nobody's top-level pane here, and its
// stall goes to its owner through the outbox. Changed only under the file's lock.

import type { ParentLink, Parents } from '../../core/agents/watchdog-types.js';
import { readState, updateState } from '../engine/store.js';
import type { StateIO } from '../io.js';
import { ParentsSchema } from '../schemas/watchdog-schemas.js';

const EMPTY: Parents = { version: 1, children: {} };

export function readParents(io: StateIO): Promise<Parents | undefined> {
  return readState(io.paths.parents, ParentsSchema, io);
}

/** Links the child in `terminal` to its owner elsewhere (a relaunch in the same terminal replaces it). */
export async function linkChild(io: StateIO, terminal: string, link: ParentLink): Promise<void> {
  await updateState(io.paths.parents, ParentsSchema, io, (current) => {
    const parents = current ?? EMPTY;
    return { result: undefined, next: { ...parents, children: { ...parents.children, [terminal]: link } } };
  });
}

/** Drops the links `gone` says are over; writes nothing when none is. Returns how many went. */
export async function unlinkChildren(
  io: StateIO,
  gone: (terminal: string, link: ParentLink) => boolean,
): Promise<number> {
  return updateState(io.paths.parents, ParentsSchema, io, (current) => {
    if (current === undefined) return { result: 0 };
    const children: Parents['children'] = {};
    let dropped = 0;
    for (const [terminal, link] of Object.entries(current.children)) {
      if (gone(terminal, link)) dropped += 1;
      else children[terminal] = link;
    }
    return dropped === 0 ? { result: 0 } : { result: dropped, next: { ...current, children } };
  });
}
