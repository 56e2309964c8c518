// Asking the local service for a cleanup pass (spec, "The sweep in serve"): the stop gate writes the
// durable sweep-request.json, then pokes sweep.sock so the service looks at once (sweep-wake.ts).
// Never runs the survey itself.

import type { StateIO } from '../state/io.js';
import { writeSweepRequest } from './sweep-request.js';
import { wakeSweeper } from './sweep-wake.js';

export interface SweepAsk {
  /** Whether sweep.sock took the poke (false: the service finds it on its interval). */
  woke: boolean;
}

export async function requestSweep(io: StateIO, by: string | null): Promise<SweepAsk> {
  await writeSweepRequest(io, by);
  return { woke: await wakeSweeper(io.paths.sweepSock) };
}

/**
 * What every completed stop does (spec, "The sweep in serve"): asks for a cleanup pass. A failed
 * request is a warning only: the gate's and the inbox's messages still reach the agent.
 */
export async function askForSweep(io: StateIO, owner: string | null): Promise<void> {
  try {
    await requestSweep(io, owner);
  } catch (error) {
    io.warn(`dogsled: warning: cleanup request: ${(error as Error).message}`);
  }
}
