// The host verbs for agents a caller on another host places or reaches here: `agent` launches a
// child from the JSON request on stdin (its harness checked on the caller's PATH as mapped here,
// its checkout verified or cloned, its task file written here, then the same launch as a local one
// with that PATH), and `read`, `close`, `send` act on a child here with the
// same results as the local commands; `worktree` makes a `--branch` worktree here for `place` and
// `run` on another host. Every name, path and text arrives as data.

import { rm } from 'node:fs/promises';
import * as z from 'zod/mini';
import { closeKeeping } from '../actions/close.js';
import { readTarget } from '../actions/read.js';
import { workspaceNamed } from '../agents/caller-workspace.js';
import { checkHarness, launchAgent } from '../agents/launch-agent.js';
import { CallerEnvSchema, callerEnvHere } from '../agents/peer-caller-env.js';
import { discardFreshClone } from '../agents/unused-work.js';
import type { LaunchRecord } from '../core/agents/launch-types.js';
import { DogsledError } from '../core/common/errors.js';
import { HOST_IDENTITY } from '../core/fleet/fleet-types.js';
import { senderFromPeer } from '../core/inbox/inbox.js';
import { SETUP_CAP_MS } from '../core/placement/budget.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { endReservations } from '../hosts/reserve-room.js';
import { sendMessage } from '../inbox/send.js';
import { lazySchema } from '../state/engine/lazy-schema.js';
import {
  LaunchTaken,
  launchFiles,
  neverTried,
  readLaunchRecord,
  writeTaskFile,
} from '../state/records/launch-files.js';
import { InboxSenderSchema } from '../state/schemas/inbox-schemas.js';
import { AgentRequestSchema } from '../state/schemas/queue-items-schemas.js';
import { openTerminal } from '../terminal/open.js';
import { Deadline } from '../time/deadline.js';
import { ensureBranchWorktree } from '../worktrees/branch-worktree.js';
import { type PlacedHere, placeHere, WorkPlaceSchema } from '../worktrees/peer-checkout.js';
import { stdinRequest } from './stdin-request.js';
import type { VerbIO, VerbResult } from './verb-table.js';

const ID = /^[a-z]_[a-z0-9]{6,32}$/;

export const AgentLaunchRequestSchema = lazySchema(() =>
  z.looseObject({
    item: z.string().check(z.regex(ID)),
    request: AgentRequestSchema,
    /** The task text: it becomes launches/<launch>.task.md here, the host that runs the child. */
    task: z.string(),
    place: WorkPlaceSchema,
    owner: z.nullable(z.string()),
    /** The name of the caller's workspace: work outside a repository opens in the one so named here. */
    caller_workspace_name: z.optional(z.nullable(z.string())),
    /** The owner's host identity: the child's messages for it wait in this host's outbox. */
    owner_host: z.optional(z.nullable(z.string().check(z.regex(HOST_IDENTITY)))),
    ticket: z.nullable(z.string()),
    reservation: z.nullable(z.string()),
    /** What remains of the caller's budget; the launch here takes at most this (and 10 minutes). */
    max_ms: z.number().check(z.positive()),
    /**
     * The child's environment from its caller (agents/peer-caller-env.ts); absent from an older
     * caller, whose child gets the pane's environment Herdr gives it here.
     */
    caller_env: z.optional(CallerEnvSchema),
  }),
);

export type AgentLaunchRequest = z.infer<typeof AgentLaunchRequestSchema>;

/** `host agent` with the request on stdin: `{record, item, worktree}` of the child started here. */
export async function agentVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const names = { verb: 'agent', noun: 'request', kind: 'an agent launch' };
  const spec = stdinRequest(names, io, AgentLaunchRequestSchema, args);
  const deadline = new Deadline(Math.min(spec.max_ms, SETUP_CAP_MS));
  const { launch } = spec.request;
  // The launch id names files here: one that could name a path elsewhere is refused first.
  const files = launchFiles(io.paths, launch);
  let placed: PlacedHere | undefined;
  let wroteTask = false;
  try {
    // Ended by the admission's owner before it got here (a late call): refused before any change.
    const ended = await readLaunchRecord(io.paths, launch);
    if (ended !== undefined)
      throw new LaunchTaken(`host agent: launch ${launch} was ended: ${endedWhy(ended)}`, ended);
    // A harness the caller's PATH does not find here is refused before any clone, file or pane; the
    // caller names this host before the line.
    const env = spec.caller_env === undefined ? null : callerEnvHere(io, spec.caller_env);
    if (env !== null) await checkHarness(spec.request, null, env, io.home);
    const here = await deadline.step('preparing the checkout', 'setup', (signal) =>
      placeHere({ ...io, signal }, spec.place, { timeoutMs: deadline.allowance('setup') }),
    );
    placed = here;
    await writeTaskFile(io.paths, launch, spec.task);
    wroteTask = true;
    const port = await openTerminal({ env: io.env, home: io.home, commandName: 'agent', warn: io.warn });
    const named = spec.caller_workspace_name ?? null;
    // Outside a repository (no checkout, no branch) the child's tab goes in the caller's workspace.
    const callerWorkspace =
      named !== null &&
      spec.request.branch === null &&
      spec.place.checkout === null &&
      port.kind !== 'headless'
        ? await deadline.step("finding the caller's workspace", 'routine', () =>
            workspaceNamed(port, named, here.cwd),
          )
        : null;
    const launched = await launchAgent(
      { ...io, terminal: async () => port },
      {
        itemId: spec.item,
        request: { ...spec.request, cwd: here.cwd, caller_workspace: callerWorkspace },
        // An owner on another host has no pane here: its messages go to the outbox (inbox/outbox.ts).
        owner: spec.owner_host ? null : spec.owner,
        remoteOwner: spec.owner_host ? { host: spec.owner_host, pane: spec.owner } : null,
        host: LOCAL_HOST.id,
        ticket: spec.ticket,
        reservation: spec.reservation,
        env,
      },
      deadline,
    );
    return { value: { record: launched.record, item: launched.item, worktree: launched.worktree } };
  } catch (error) {
    // Refused before its record, or at it (ended by its owner meanwhile): nothing of the launch
    // stays here, and the ended one's clone goes too when it holds no work; its room is given back.
    const record = await readLaunchRecord(io.paths, launch).catch(() => undefined);
    const ended = error instanceof LaunchTaken && record !== undefined && neverTried(record);
    if ((record === undefined || ended) && wroteTask) await rm(files.task, { force: true }).catch(() => {});
    // A clone made for a launch refused otherwise stays: the next launch here uses it.
    if (ended && placed?.cloned) {
      const stays = await discardFreshClone(io, placed.top, launch);
      if (stays !== null) io.warn(`dogsled: warning: host agent: ${stays}`);
    }
    if (spec.reservation !== null) await endReservations(io, [spec.reservation]).catch(() => undefined);
    throw error;
  }
}

function endedWhy(record: LaunchRecord): string {
  return record.error ?? `it is ${record.state}`;
}

/** `host read TARGET`: the report `dogsled read TARGET` gives here. */
export async function readVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const [target, ...rest] = args;
  if (target === undefined || rest.length > 0) throw new DogsledError('host read: takes one target');
  return { value: await readTarget(io, target, null) };
}

/**
 * `host close PANE`: the result `dogsled close PANE --json` gives here, and `child`, what the
 * child's item here kept (its reply and receipt), for the owner's item on the caller's host.
 */
export async function closeVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const [pane, ...rest] = args;
  if (pane === undefined || rest.length > 0) throw new DogsledError('host close: takes one pane');
  // The caller's pane is on its own host: no pane here is the caller's.
  const { result, kept } = await closeKeeping(io, pane, null);
  return { value: { ...result, child: kept } };
}

const SendInputSchema = lazySchema(() => z.looseObject({ text: z.string(), sender: InboxSenderSchema }));

/** `host send TARGET KIND` with `{text, sender}` on stdin: the record, written into the inbox here. */
export async function sendVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const [target, kind, ...rest] = args;
  if (target === undefined || kind === undefined || rest.length > 0) {
    throw new DogsledError('host send: takes a target and a kind');
  }
  const names = { verb: 'send', noun: 'request', kind: 'a message' };
  const { text, sender } = stdinRequest(names, io, SendInputSchema);
  // Every field the caller named itself by is cleaned and bounded before it is stored or shown here.
  const from = senderFromPeer(sender, LOCAL_HOST.id);
  return { value: await sendMessage(io, { target, host: null, kind, text, sender: from }) };
}

const WorktreeRequestSchema = lazySchema(() =>
  z.looseObject({
    place: WorkPlaceSchema,
    branch: z.string(),
    base: z.nullable(z.string()),
    command: z.enum(['place', 'run', 'agent']),
    max_ms: z.number().check(z.positive()),
  }),
);

export type WorktreeRequest = z.infer<typeof WorktreeRequestSchema>;

/**
 * `host worktree` with the request on stdin: the branch's worktree in this host's checkout (verified
 * against the caller's origin or cloned from it), made or reused exactly as a local `--branch`.
 */
export async function worktreeVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const names = { verb: 'worktree', noun: 'request', kind: 'a worktree request' };
  const spec = stdinRequest(names, io, WorktreeRequestSchema, args);
  const deadline = new Deadline(Math.min(spec.max_ms, SETUP_CAP_MS));
  const placed = await deadline.step('preparing the checkout', 'setup', (signal) =>
    placeHere({ ...io, signal }, spec.place, { timeoutMs: deadline.allowance('setup') }),
  );
  const ask = { repo: placed.cwd, branch: spec.branch, base: spec.base ?? undefined, command: spec.command };
  return { value: await ensureBranchWorktree(ask, { ...io, deadline }) };
}
