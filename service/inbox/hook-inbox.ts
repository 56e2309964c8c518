// `hook inbox` and `hook gate` (spec, "Inbox" readers and the stop gate): register the reader,
// claim the next batch, hand it (with the gate's reminder at Stop) to the caller's printer and
// acknowledge exactly what was printed; or the reminder alone for Pi's settle hook. Outside a Herdr
// or tmux pane or without a state directory a hook adds nothing. One answer stays under the
// harness's size cap with every piece in it counted, and a Stop gives no block past what the
// harness honours in a row (core/stop-chain.ts): what waits then goes with the next prompt.

import { setTimeout as sleep } from 'node:timers/promises';
import { testKnob } from '../core/common/test-knobs.js';
import { batchBudget, batchText } from '../core/inbox/inbox-text.js';
import { nextStopBlock, stopBlockLimit } from '../core/inbox/stop-chain.js';
import type { ProcessIO } from '../state/io.js';
import { hookPane } from '../terminal/herdr/herdr-env.js';
import { mark } from '../time/timing.js';
import { gateCheck } from './gate.js';
import { type HookHarness, hasStateDir, hookCaller, type InboxHookEvent } from './hook-common.js';
import { ackDelivery, claimDelivery, noteStopBlock, recordedStopBlocks } from './reader.js';
import type { Whereabouts } from './whereabouts.js';

/** What the harness said on stdin that the inbox hook uses. */
export interface InboxHookInput {
  /** Stop: a Stop hook already continued this turn. */
  stopHookActive: boolean;
}

/**
 * `hook inbox`: the next batch for this terminal, and at Stop the gate's reminder if one is due,
 * given to `print` (the batch, then the reminder); what `print` resolved for is then acknowledged,
 * so a hook that dies before its output is out leaves the batch to be offered again. The reminder is
 * decided first and its size is taken from the batch's, so the whole answer stays under BATCH_CHARS.
 */
export async function inboxHook(
  io: ProcessIO,
  harness: HookHarness,
  event: InboxHookEvent,
  input: InboxHookInput,
  print: (text: string) => Promise<void>,
): Promise<void> {
  const owner = hookPane(io.env);
  if (owner === null || !hasStateDir(io)) return;
  const at = await hookCaller(io, 'hook inbox');
  mark('caller');
  // Near the harness's cap a block could be dropped with what it carried: the next prompt takes it.
  const block = event === 'Stop' ? await stopBlock(io, at, input) : undefined;
  if (block === null) {
    await askForSweep(io, owner);
    return;
  }
  // Every piece of the answer besides the batch, each counted in the size cap.
  const pieces: string[] = [];
  const reminder = event === 'Stop' ? await stopReminder(io, owner) : undefined;
  if (reminder !== undefined) pieces.push(reminder);
  const delivery = await claimDelivery(io, at, harness, {
    budget: batchBudget(pieces),
    stopBlocks: block,
  }).catch((error: unknown) => {
    // A reminder is recorded as given already: it still goes out, alone.
    if (pieces.length === 0) throw error;
    return undefined;
  });
  const records = delivery?.records ?? [];
  const parts: string[] = [];
  if (delivery !== undefined && records.length > 0) parts.push(batchText(records, io.now(), delivery.left));
  parts.push(...pieces);
  if (parts.length === 0) return;
  // A block that claimed nothing still counts (best effort: the reminder is recorded as given).
  if (block !== undefined && records.length === 0) await noteStopBlock(io, at, block).catch(() => undefined);
  await print(parts.join('\n\n'));
  if (delivery === undefined || records.length === 0) return;
  await testPause(io.env);
  await ackDelivery(
    io,
    delivery,
    records.map((record) => record.id),
    false,
  );
}

/**
 * The Stop block this answer would be in its chain (core/stop-chain.ts), or null when that is past
 * what the harness honours in a row (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP).
 */
async function stopBlock(
  io: ProcessIO,
  at: Pick<Whereabouts, 'terminal'>,
  input: InboxHookInput,
): Promise<number | null> {
  const active = input.stopHookActive;
  const block = nextStopBlock(active, active ? await recordedStopBlocks(io, at) : undefined);
  return block > stopBlockLimit(io.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP) ? null : block;
}

/**
 * What a Stop adds to the inbox's batch: a cleanup pass is requested, then the stop gate's reminder
 * (finished children with work to land, cleanup findings in the owner's work), once per set. A gate
 * that fails costs the reminder, never the batch.
 */
export async function stopReminder(io: ProcessIO, owner: string): Promise<string | undefined> {
  await askForSweep(io, owner);
  return gateCheck(io, owner).catch(() => undefined);
}

/** Test-only pause between printing and acknowledging, where a crash test kills the hook. */
async function testPause(env: NodeJS.ProcessEnv): Promise<void> {
  const ms = testKnob(env, 'HOOK_PAUSE_MS');
  if (ms !== undefined) await sleep(ms);
}

/** The cleanup pass every completed stop asks for (sweep/request.ts), loaded when a stop asks. */
async function askForSweep(io: ProcessIO, owner: string | null): Promise<void> {
  const { askForSweep: ask } = await import('../sweep/request.js');
  await ask(io, owner);
}

/** `hook gate`: Pi's settle hook asks for a cleanup pass and gets the reminder alone. */
export async function gateHook(io: ProcessIO): Promise<string | undefined> {
  const owner = hookPane(io.env);
  if (owner === null || !hasStateDir(io)) return undefined;
  await askForSweep(io, owner);
  return gateCheck(io, owner);
}
