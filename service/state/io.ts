// The dependency vocabulary of the service: what its functions receive instead of reaching for
// process globals. StateIO is what every state read and write needs (the state paths, the clock,
// the warning sink, the caller's deadline); HostIO adds this host's config (its policy) and the
// process's environment and home (Herdr, git, job panes). A function that needs a little more
// takes a small extension of one of them, named `...IO`; the CLI makes them in cli/io.ts.

import type { Config } from './config/config.js';
import type { StatePaths } from './paths.js';

export interface StateIO {
  paths: StatePaths;
  /** Unix ms; stamps records and names quarantined files. */
  now: () => number;
  /** Receives whole warning lines (`dogsled: warning: ...`). */
  warn: (line: string) => void;
  /**
   * The caller's deadline (Deadline.step): once aborted, lock waits end and nothing more is written,
   * so a command that already reported a timeout never leaves a change behind that nobody was told of.
   */
  signal?: AbortSignal | undefined;
}

export interface HostIO extends StateIO {
  /** config.toml as loaded (defaults for a missing file); it is also the placement policy. */
  config: Config;
  /** The environment Herdr, git and job panes are found and started with. */
  env: NodeJS.ProcessEnv;
  home: string;
}

/** What starting processes in this host's environment needs, without its config (exec, launches). */
export type ProcessIO = StateIO & Pick<HostIO, 'env' | 'home'>;
