// The IO a front end (the CLI, its MCP tools, the sidebar, the Pi extension) hands an action: the
// service's vocabulary (StateIO, ProcessIO, HostIO; service/state/io.ts), re-exported so a front
// end needs nothing of service/ but actions and core, and the two small extensions verbs add to it:
// UserIO, the person (or model) the verb runs for, told of progress and asked questions through the
// front end rather than through the process's streams; LazyHostIO, whose config.toml is loaded
// only when the verb turns out to need the host policy (a job that runs on a peer).

import type { LogWrite } from '../jobs/job-logs.js';
import type { Queued } from '../queue/submit.js';
import type { StopScope } from '../queue/ticket-wait.js';
import { clockFromEnv } from '../state/engine/clock.js';
import type { HostIO, ProcessIO } from '../state/io.js';
import { configPathFrom, type StatePaths, stateDirFrom, statePaths } from '../state/paths.js';

export type { HostIO, ProcessIO, StateIO } from '../state/io.js';
export type { LogWrite, Queued, StopScope };

/** A question's answer; `unasked` when nobody can answer here (no terminal to ask on). */
export type Answer = 'yes' | 'no' | 'interrupted' | 'unasked';

/**
 * What an action may tell or ask the one it runs for while it runs. Every member is optional: a
 * front end that shows no progress or cannot ask leaves it out, and the action does without (a
 * question nobody can answer is `unasked`).
 */
export interface UserIO {
  /** One progress line, rewritten in place; '' clears it. */
  progress?: (text: string) => void;
  /** A yes/no question, asked once. */
  ask?: (question: string) => Promise<Answer>;
  /** The request became a ticket: said at once, before any wait for its admission. */
  queued?: (queued: Queued) => void;
  /** Lets the user interrupt a wait (Ctrl-C): the wait ends, the work is left as it is. */
  untilStopped?: StopScope;
  /** A job's output as exec captured it (`logs`, `run --wait`), with backpressure. */
  output?: LogWrite;
}

/** HostIO for a verb that talks to its user while it waits (run, agent, place, doctor, prune). */
export interface UserHostIO extends HostIO, UserIO {}

/**
 * ProcessIO with the host policy on demand: verbs on a job (stop, logs, wait, ps) load config.toml
 * only when the job is a peer's, so a broken config never hides this host's own jobs.
 */
export interface LazyHostIO extends ProcessIO, UserIO {
  hostIO: () => Promise<HostIO>;
}

/** Where a front end's state and config are, as its process's environment and flags say. */
export interface CallerPlaces {
  stateDir: string;
  paths: StatePaths;
  config: { path: string; explicit: boolean };
  now: () => number;
}

/** The state dir, its paths, config.toml's path (`--config`, else the environment's) and the clock. */
export function callerPlaces(env: NodeJS.ProcessEnv, home: string, configFlag?: string): CallerPlaces {
  const stateDir = stateDirFrom(env, home);
  const now = clockFromEnv(env);
  return { stateDir, paths: statePaths(stateDir), config: configPathFrom(configFlag, env, home), now };
}
