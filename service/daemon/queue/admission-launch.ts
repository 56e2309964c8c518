// One admission's launch, run by the admission worker here or on a peer: under the setup cap, its
// failure kept as one line with its error, and the pauses tests use to kill the service at a
// chosen point of an admission.

import { setTimeout as sleep } from 'node:timers/promises';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { testKnob } from '../../core/common/test-knobs.js';
import { SETUP_CAP_MS } from '../../core/placement/budget.js';
import { squeezedLine } from '../../core/text/clean.js';
import { Deadline } from '../../time/deadline.js';
import type { WorkerIO } from '../worker-io.js';

/** Why a launch failed (recorded on the ticket whatever it was), and the error itself. */
export interface LaunchFailure {
  error: string;
  cause: unknown;
}

/**
 * Runs one admission's launch under the setup cap; an admission that runs out of it fails its
 * ticket. The step's signal reaches the launch's writes, so a launch still running then (behind a
 * lock) writes nothing more but its own undoing: no item or pane for a ticket already failed.
 */
export async function launchUnderCap(
  deps: WorkerIO,
  ticket: string,
  launch: (ctx: WorkerIO & { afterRecord: () => Promise<void> }, deadline: Deadline) => Promise<unknown>,
): Promise<LaunchFailure | null> {
  const ctx = { ...deps, afterRecord: () => admissionPause(deps.env, 'after-record') };
  const deadline = new Deadline(deps.launchCapMs ?? SETUP_CAP_MS);
  try {
    await deadline.step(`admission of ticket ${ticket}`, 'setup', (signal) =>
      launch({ ...ctx, signal }, deadline),
    );
    return null;
  } catch (error) {
    if (!(error instanceof DogsledError))
      deps.warn(`dogsled serve: admission of ${ticket}: ${String(error)}`);
    return { error: squeezedLine(messageOf(error)), cause: error };
  }
}

/**
 * The ADMISSION_PAUSE_MS knob: a window for SIGKILL tests at the point ADMISSION_PAUSE_AT names:
 * `before-launch` (claimed, no record yet), `after-record` (record, item and environment written, no
 * pane yet) or `after-launch` (the default: the pane or process runs exec, or the peer answered; the
 * ticket is not yet `admitted`).
 */
export async function admissionPause(
  env: NodeJS.ProcessEnv,
  point: 'before-launch' | 'after-record' | 'after-launch',
): Promise<void> {
  if ((testKnob(env, 'ADMISSION_PAUSE_AT') ?? 'after-launch') !== point) return;
  const ms = testKnob(env, 'ADMISSION_PAUSE_MS');
  if (ms !== undefined) await sleep(ms);
}
