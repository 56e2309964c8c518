// The lean hooks (cli/hot/hook-lean.ts): `hook inbox`, `hook gate` and `hook context` in their
// common case, nothing pending (service/inbox/pending-glance.ts), with the work the full hook does
// there too: a Stop, and Pi's settle hook, ask for a cleanup pass (sweep/request.ts, the same
// writer, checked by hand). Each answers null when the hook is done with nothing to print, the
// context to print, or undefined, before anything was written, when the full hook
// (service/actions/hook.ts) must answer.

import type { HookHarness, InboxHookEvent } from '../core/inbox/hook-input.js';
import type { HookContext } from '../inbox/hook-context.js';
import {
  glanceCaller,
  glanceNoReminder,
  glanceNothingToDeliver,
  glanceOwner,
} from '../inbox/pending-glance.js';
import type { HostIO, ProcessIO } from '../state/io.js';

/**
 * The cleanup request (sweep/request-now.ts), and below the context's glance, load when a hook needs
 * them: no prompt's hook writes a request.
 */
async function askForSweep(io: ProcessIO, owner: string): Promise<void> {
  const { askForSweepNow } = await import('../sweep/request-now.js');
  await askForSweepNow(io, owner);
}

/** `hook inbox` with nothing to deliver and, at a Stop, no reminder due: the pass asked for. */
export async function glanceInboxHook(
  io: ProcessIO,
  harness: HookHarness,
  event: InboxHookEvent,
): Promise<null | undefined> {
  const owner = glanceOwner(io);
  if (owner === null) return null;
  const at = glanceCaller(io);
  if (at === undefined || !glanceNothingToDeliver(io, at, harness)) return undefined;
  if (event === 'Stop') {
    if (!glanceNoReminder(io, owner)) return undefined;
    await askForSweep(io, owner);
  }
  return null;
}

/** `hook gate` with no reminder due: the pass asked for. */
export async function glanceGateHook(io: ProcessIO): Promise<null | undefined> {
  const owner = glanceOwner(io);
  if (owner === null) return null;
  if (!glanceNoReminder(io, owner)) return undefined;
  await askForSweep(io, owner);
  return null;
}

/**
 * `hook context` when the caller has no work here: the fleet lines to show, or null for none. The
 * host policy (config.toml) is loaded only for a caller with a pane and a state dir.
 */
export async function glanceContextHook(
  io: ProcessIO,
  hostIO: () => Promise<HostIO>,
  harness: HookHarness,
  event: string,
): Promise<HookContext | null | undefined> {
  const owner = glanceOwner(io);
  if (owner === null) return null;
  const { glanceContext } = await import('../inbox/context-glance.js');
  return glanceContext(await hostIO(), owner, harness, event);
}
