// What the service's work workers (admission, completion) need from the service run. Side effects
// come in here with real defaults: the environment and home of this process for Herdr and the panes.

import { homedir } from 'node:os';
import type { Policy } from '../core/headroom.js';
import type { StatePaths } from '../state/paths.js';

export interface WorkerDeps {
  paths: StatePaths;
  policy: Policy;
  now: () => number;
  warn: (line: string) => void;
  /** This service run: the admitter written on the tickets it claims. */
  pid: number;
  started_ms: number;
  /**
   * How often each worker looks without being poked: the service's interval, since room appears
   * with a new snapshot (which pokes admission) or an expired reservation. Never under a second.
   */
  paceMs?: number;
  /** For Herdr and the job panes; default this process's environment and home. */
  env?: NodeJS.ProcessEnv;
  home?: string;
}

export type ResolvedWorkerDeps = WorkerDeps & { env: NodeJS.ProcessEnv; home: string };

export function withDefaults(deps: WorkerDeps): ResolvedWorkerDeps {
  const env = deps.env ?? process.env;
  return { ...deps, env, home: deps.home ?? (env.HOME || homedir()) };
}
