// What the service's work workers (admission, completion) get from the service run: this host's
// IO (state, config, and the environment Herdr and the job panes are found and started with), who
// this run is, and how often to look.

import { setTimeout as sleep } from 'node:timers/promises';
import type { HostIO } from '../state/io.js';

export interface WorkerIO extends HostIO {
  /** This service run: the admitter written on the tickets it claims. */
  pid: number;
  started_ms: number;
  /**
   * How often each worker looks without being poked: the service's interval, since room appears
   * with a new snapshot (which pokes admission) or an expired reservation. Never under a second.
   */
  paceMs?: number;
  /** The longest one admission's launch may take; default the setup cap (10 minutes). */
  launchCapMs?: number;
}

/**
 * DOGSLED_TEST_ADMISSION_PAUSE_MS (with DOGSLED_TEST=1): a window for SIGKILL tests at the point
 * DOGSLED_TEST_ADMISSION_PAUSE_AT names: `before-launch` (claimed, no record yet), `after-record`
 * (record, item and environment written, no pane yet) or `after-launch` (the default: the pane or
 * process runs exec, the ticket is not yet `admitted`). On a peer, `after-launch` is the peer's
 * answer received, the ticket not yet `admitted`.
 */
export async function admissionPause(
  env: NodeJS.ProcessEnv,
  point: 'before-launch' | 'after-record' | 'after-launch',
): Promise<void> {
  if (env.DOGSLED_TEST !== '1') return;
  if ((env.DOGSLED_TEST_ADMISSION_PAUSE_AT || 'after-launch') !== point) return;
  const ms = Number(env.DOGSLED_TEST_ADMISSION_PAUSE_MS ?? '');
  if (Number.isFinite(ms) && ms > 0) await sleep(ms);
}
