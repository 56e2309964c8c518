// What of a child's caller environment travels with its launch on a peer (`host agent`), and what
// the peer launches it with: the caller's PATH (core/agent-env.ts), as a queued child here gets it.
// The PATH travels as its directories, each one under the caller's home named relative to that home
// (worktrees/peer-checkout.ts), because a home is the host's own: the peer's user has another one,
// and what the caller installed under its home (~/.local/bin, ~/.npm-global/bin) is under the
// peer's home there, as the work's directory is. Nothing else of the caller's environment travels:
// its HOME, state directory and Herdr or tmux pane variables name things of the caller's host, and
// the peer sets its own (launch-agent.ts gives the child this host's DOGSLED_STATE).

import * as z from 'zod/mini';
import { lazySchema } from '../state/engine/lazy-schema.js';
import type { ProcessIO } from '../state/io.js';
import { dirsHere, TravellingDirsSchema, travellingDirs } from '../worktrees/peer-checkout.js';

export const CallerEnvSchema = lazySchema(() =>
  z.looseObject({
    /** The caller's PATH, directory by directory; null when the caller had none. */
    path: z.nullable(TravellingDirsSchema),
  }),
);

export type CallerEnv = z.infer<typeof CallerEnvSchema>;

/** The caller's side: its child's environment (agentCallerEnvironment's) as it travels. */
export function callerEnvForPeer(env: Readonly<Record<string, string>>, home: string): CallerEnv {
  return { path: env.PATH === undefined ? null : travellingDirs(env.PATH, home) };
}

/** The peer's side: the environment its child's pane gets, the caller's home dirs under this home. */
export function callerEnvHere(io: Pick<ProcessIO, 'home'>, sent: CallerEnv): Record<string, string> {
  return sent.path === null ? {} : { PATH: dirsHere(io, sent.path) };
}
