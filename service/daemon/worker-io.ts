// What the service's work workers (admission, completion) get from the service run: this host's
// IO (state, config, and the environment Herdr and the job panes are found and started with), who
// this run is, and how often to look.

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
