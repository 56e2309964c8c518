// What the service's work workers (admission, completion) get from the service run: this host's
// IO (state, config, and the environment Herdr and the job panes are found and started with), who
// this run is, how often to look, and the service's one pooled link to each peer.

import type { HostIO } from '../state/io.js';
import type { SshPool } from '../transport/pool.js';
import type { Transport } from '../transport/types.js';

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
  /**
   * The service's one ssh2 connection per peer (serve.ts opens and closes it): the peers lane's
   * reads and admission's calls there both go over it (spec: one-shot OpenSSH is for CLI calls).
   * Without it (a worker run alone in a test) a call to a peer is one OpenSSH call.
   */
  transport?: SshPool;
  /**
   * The service's connection to the fleet bus, lent to its calls to hosts met there (serve.ts, when
   * `[fleet] bus` is set): `unreachable: bus down` while the service is off the bus.
   */
  bus?: Transport;
}
