// Where an inbox is: a terminal (Herdr's, or a tmux pane's `%N@<server pid>`), found through the
// terminal port from a pane id (the caller's HERDR_PANE_ID, which stays an alias after a move, or
// TMUX_PANE) or from an agent name or pane a sender typed.
// Records are keyed by terminal, so a record follows the terminal and never a reused pane id.

import { DogsledError } from '../core/common/errors.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Listing } from '../terminal/port-records.js';
import { isTerminalError, needsTerminal } from '../terminal/terminal-errors.js';
import { listedPane, nameOf } from './listing-targets.js';

export { nameOf } from './listing-targets.js';

export interface Whereabouts {
  terminal: string;
  pane: string;
  /** The agent name Herdr shows for the terminal, else null. */
  name: string | null;
}

export interface TerminalOptions {
  env: NodeJS.ProcessEnv;
  home: string;
  /** Names the command in `<command> needs Herdr or tmux (...)`. */
  commandName: string;
  /** Per-call deadline; hooks pass a short one. */
  timeoutMs?: number;
}

/** Herdr or tmux, refusing headless: every inbox is keyed by a terminal. */
export async function openHerdr(options: TerminalOptions): Promise<TerminalPort> {
  const { openTerminal } = await import('../terminal/open.js');
  const port = await openTerminal({
    env: options.env,
    home: options.home,
    commandName: options.commandName,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    warn: () => {},
  });
  if (port.kind === 'headless') throw needsTerminal(options.commandName, port.why);
  return port;
}

/** The pane `paneId` names (an alias resolves), or undefined when Herdr has no such pane. */
export async function paneWhereabouts(
  port: TerminalPort,
  paneId: string,
  listing?: Listing,
): Promise<Whereabouts | undefined> {
  const listed = listing && listedPane(listing, paneId);
  if (listed) return listed;
  try {
    const pane = await port.getPane(paneId);
    return { terminal: pane.terminal_id, pane: pane.pane_id, name: nameOf(listing, pane.terminal_id) };
  } catch (error) {
    if (isTerminalError(error, 'pane_not_found') || isTerminalError(error, 'invalid_request'))
      return undefined;
    throw error;
  }
}

/** The caller's own inbox location, or undefined outside a Herdr or tmux pane. */
export async function callerWhereabouts(
  port: TerminalPort,
  env: NodeJS.ProcessEnv,
  listing?: Listing,
): Promise<Whereabouts | undefined> {
  const pane = callerPane(env);
  return pane === null ? undefined : paneWhereabouts(port, pane, listing);
}

/** The caller's inbox, or a one-line refusal naming why there is none. */
export async function requireCaller(
  port: TerminalPort,
  env: NodeJS.ProcessEnv,
  command: string,
): Promise<Whereabouts> {
  const pane = callerPane(env);
  if (pane === null) {
    throw new DogsledError(
      `${command}: not run in a Herdr or tmux pane (neither HERDR_PANE_ID nor TMUX_PANE is set)`,
    );
  }
  const found = await paneWhereabouts(port, pane);
  if (!found)
    throw new DogsledError(
      `${command}: ${port.kind === 'tmux' ? 'tmux' : 'Herdr'} does not know this pane (${pane})`,
    );
  return found;
}
