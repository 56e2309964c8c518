// Launching one placed child agent, for `dogsled agent` and for the service's admission alike: check
// the launch line and that the harness is on the caller's PATH (before any pane exists), make or
// reuse the `--branch` worktree (every refusal before any change), write the durable launch record
// and the owner's item, open the child's pane with the caller's PATH (core/agent-env.ts), write its
// contract, then `herdr agent start` with up to three tries (start-tries.ts). Nothing is typed into
// the pane but the launch line Herdr types; the task is launches/<id>.task.md.

import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { harnessBinary } from '../core/agents/agent-env.js';
import type { Item } from '../core/agents/item-types.js';
import { launchLine } from '../core/agents/launch-line.js';
import { childRole } from '../core/agents/launch-state.js';
import type { LaunchRecord } from '../core/agents/launch-types.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { testKnob } from '../core/common/test-knobs.js';
import type { AgentRequest } from '../core/placement/queue-types.js';
import { squeezedLine } from '../core/text/clean.js';
import { findExecutable } from '../process/find-executable.js';
import type { HostIO } from '../state/io.js';
import {
  createLaunchRecord,
  LaunchTaken,
  launchFiles,
  neverTried,
  updateLaunchRecord,
  writeContractFile,
} from '../state/records/launch-files.js';
import { linkChild } from '../state/records/parents.js';
import { appendItem, updateItems } from '../state/records/queue-items.js';
import { openTerminal } from '../terminal/open.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Pane } from '../terminal/port-records.js';
import { needsTerminal } from '../terminal/terminal-errors.js';
import type { Deadline } from '../time/deadline.js';
import { mark } from '../time/timing.js';
import { type BranchWorktree, ensureBranchWorktree } from '../worktrees/branch-worktree.js';
import { openAgentPane } from './agent-pane.js';
import { launchProfile, loadProfile, type Profile, profilesDir } from './profiles.js';
import { startWithTries } from './start-tries.js';
import { discardCreatedWorktree } from './unused-work.js';

export interface AgentLaunchIO extends HostIO {
  /** An already opened terminal port (the caller's); default openTerminal. */
  terminal?: () => Promise<TerminalPort>;
  /** Called once the record and item exist, before the pane opens (tests pause here). */
  afterRecord?: () => Promise<void>;
  random?: () => number;
}

export interface AgentLaunchSpec {
  itemId: string;
  request: AgentRequest;
  owner: string | null;
  /** An owner on another host (`host agent`): its host identity and pane there; `owner` is null. */
  remoteOwner?: { host: string; pane: string | null } | null;
  host: string;
  ticket: string | null;
  reservation: string | null;
  /**
   * What the child's launch takes from its caller's environment (core/agent-env.ts: PATH), which
   * its pane gets; undefined or null (a peer's launch, a ticket from an older dogsled) leaves the
   * pane's environment to Herdr or tmux, as it was.
   */
  env?: Record<string, string> | null;
}

export interface AgentLaunched {
  record: LaunchRecord;
  item: Item;
  worktree: BranchWorktree | null;
}

/** The launch line for `request` on this host, or the refusal (before any pane or change). */
export async function checkAgentLine(
  io: Pick<HostIO, 'paths' | 'home'>,
  request: Pick<AgentRequest, 'launch' | 'kind' | 'name' | 'profile'>,
): Promise<{ args: string[]; profile: Profile | null }> {
  if (request.profile !== null && request.kind !== 'pi') {
    throw new DogsledError(`--profile is for Pi children only, not ${request.kind}`);
  }
  const profile = request.profile === null ? null : await loadProfile(profilesDir(io.home), request.profile);
  const files = launchFiles(io.paths, request.launch);
  const line = launchLine({
    kind: request.kind,
    name: request.name,
    // The pane is not on the typed line; any id stands in until the pane exists.
    pane: 'w1:p1',
    taskFile: resolve(files.task),
    contractFile: resolve(files.contract),
    stateDir: resolve(io.paths.dir),
    profile: profile === null ? null : launchProfile(profile),
  });
  if (!line.ok) throw new DogsledError(line.error);
  return { args: line.line.args, profile };
}

export async function launchAgent(
  io: AgentLaunchIO,
  spec: AgentLaunchSpec,
  deadline: Deadline,
): Promise<AgentLaunched> {
  const { request } = spec;
  const { args, profile } = await checkAgentLine(io, request);
  const files = launchFiles(io.paths, request.launch);
  if (spec.env) {
    await checkHarness(request, spec.host, spec.env).catch(async (error: unknown) => {
      // Refused before anything exists: the launch never began, so its task file goes too.
      await rm(files.task, { force: true }).catch(() => undefined);
      throw error;
    });
  }
  const port = await deadline.step('finding Herdr', 'routine', () =>
    (
      io.terminal ?? (() => openTerminal({ env: io.env, home: io.home, commandName: 'agent', warn: io.warn }))
    )(),
  );
  if (port.kind === 'headless') throw needsTerminal('agent', port.why);
  const worktree =
    request.branch === null
      ? null
      : await ensureBranchWorktree(
          { repo: request.cwd, branch: request.branch, base: request.base ?? undefined, command: 'agent' },
          { ...io, terminal: port, deadline },
        ).catch(async (error: unknown) => {
          // Refused or undone: the launch never began, so its task file goes too.
          await rm(files.task, { force: true }).catch(() => undefined);
          throw error;
        });
  if (worktree !== null) mark('agent: worktree ready');
  const cwd = worktree?.path ?? request.cwd;
  const role = childRole(profile?.role ?? null, request.branch !== null);
  // The record comes first: a crash from here on leaves evidence for cleanup and admission.
  let record = await createLaunchRecord(io, {
    id: request.launch,
    ticket: spec.ticket,
    item: spec.itemId,
    owner: spec.owner,
    host: spec.host,
    name: request.name,
    kind: request.kind,
    profile: request.profile,
    model: profile?.model ?? null,
    role,
    cwd,
    branch: request.branch,
    worktree: worktree?.path ?? null,
    // The child's own pane is named once it exists (the worktree's root shell is not it).
    pane: null,
    terminal_id: null,
    workspace: worktree?.workspace ?? null,
  }).catch(async (error: unknown) => {
    // Ended by its admission's owner meanwhile: this launch never began, so what it made goes.
    if (error instanceof LaunchTaken && neverTried(error.record))
      await undoTaken(io, port, files.task, worktree);
    throw error;
  });
  const item: Item = {
    id: spec.itemId,
    kind: 'agent',
    host: spec.host,
    pane: null,
    terminal_id: null,
    owner: spec.owner,
    ...(spec.remoteOwner ? { owner_host: spec.remoteOwner.host, owner_pane: spec.remoteOwner.pane } : {}),
    created_ms: record.created_ms,
    closed_ms: null,
    close_reason: null,
    job: null,
    ticket: spec.ticket,
    name: request.name,
    harness: request.kind,
    profile: request.profile,
    model: profile?.model ?? null,
    role,
    launch: request.launch,
    branch: request.branch,
    worktree: worktree?.path ?? null,
    repository: worktree?.repository ?? null,
    cwd,
    reply: null,
  };
  let where: { pane: string; terminal: string; workspace: string };
  try {
    await appendItem(io, item);
    await io.afterRecord?.();
    // The child's own `dogsled done` and hooks find this state directory whatever its shell's
    // profile or Herdr's environment says, and its shell finds the harness its caller would.
    const env = { ...(spec.env ?? {}), DOGSLED_STATE: resolve(io.paths.dir) };
    where = await deadline.step('opening the agent pane', 'routine', async (signal) => {
      if (worktree !== null) {
        const pane = await worktreeTab(io, port, worktree, request.name, env);
        return { pane: pane.pane_id, terminal: pane.terminal_id, workspace: pane.workspace_id };
      }
      const opened = await openAgentPane(port, {
        cwd,
        callerWorkspace: request.caller_workspace,
        label: request.name,
        env,
        git: { env: io.env, signal },
      });
      return { pane: opened.pane, terminal: opened.terminal, workspace: opened.workspace };
    });
    record = await updateLaunchRecord(io, request.launch, (current) => ({
      ...current,
      pane: where.pane,
      terminal_id: where.terminal,
      workspace: where.workspace,
    }));
    await changeItem(io, spec.itemId, (current) => ({
      ...current,
      pane: where.pane,
      terminal_id: where.terminal,
    }));
    if (spec.remoteOwner) await linkRemoteOwner(io, spec, where);
    await writeContractFile(io.paths, request.launch, {
      name: request.name,
      kind: request.kind,
      host: spec.host,
      owner: spec.owner,
      cwd,
      branch: request.branch,
      taskFile: resolve(files.task),
    });
  } catch (error) {
    await endLaunch(io, spec, 'failed', squeezedLine(messageOf(error)));
    throw failure(request, spec.host, messageOf(error), null, error);
  }
  mark('agent: pane and files');
  const started = await startWithTries(
    {
      ...io,
      port,
      deadline,
      random: io.random ?? Math.random,
      backoffScale: backoffScale(io.env),
    },
    {
      launch: request.launch,
      name: request.name,
      kind: request.kind,
      pane: where.pane,
      terminal: where.terminal,
      args,
      item: spec.itemId,
      createdMs: record.created_ms,
      cwd,
      taskFile: record.task_file,
    },
  );
  if (started.kind !== 'started') {
    if (started.kind === 'refused') {
      // Nothing was typed: the pane is the empty shell this launch made, so it goes.
      await port
        .closePane(where.pane)
        .catch((error: unknown) =>
          io.warn(
            `dogsled: warning: agent: cannot close the refused pane ${where.pane}: ${messageOf(error)}`,
          ),
        );
    }
    await closeItem(io, spec.itemId, `launch ${started.kind}`);
    throw failure(request, spec.host, started.error, started.record.recent_output);
  }
  mark('agent: ready');
  const shown = await changeItem(io, spec.itemId, (current) => current);
  return { record: started.record, item: shown, worktree };
}

/**
 * Refuses a child whose harness is not on the PATH its pane gets, before any pane exists: typed
 * there, the line would fail in the shell, and Herdr would report only that no agent came up.
 * `host` is null on a peer's `host agent`, whose caller puts the peer's name before the line;
 * `cwd` (default the request's) is where a relative PATH entry starts.
 */
export async function checkHarness(
  request: Pick<AgentRequest, 'kind' | 'name' | 'cwd'>,
  host: string | null,
  env: Record<string, string>,
  cwd = request.cwd,
): Promise<void> {
  const binary = harnessBinary(request.kind);
  if ((await findExecutable(binary, cwd, env.PATH)) !== undefined) return;
  const where =
    env.PATH === undefined || env.PATH === ''
      ? 'the caller has no PATH'
      : `the caller's PATH ${squeezedLine(env.PATH, 200)}`;
  const agent = host === null ? request.name : `${request.name} on ${host}`;
  throw new DogsledError(`cannot start agent ${agent}: ${binary} is not found on ${where}`);
}

/**
 * A child whose owner is on another host is tracked here in parents.json by its terminal: the
 * watchdog then treats it as that owner's child (its stall goes to the owner through the outbox, and
 * it is no top-level pane to notify). A failed write costs only that, never the launch.
 */
async function linkRemoteOwner(
  io: AgentLaunchIO,
  spec: AgentLaunchSpec,
  where: { pane: string; terminal: string },
): Promise<void> {
  const owner = spec.remoteOwner as { host: string; pane: string | null };
  await linkChild(io, where.terminal, {
    owner: owner.pane,
    owner_host: owner.host,
    item: spec.itemId,
    pane: where.pane,
    linked_ms: io.now(),
  }).catch((error: unknown) =>
    io.warn(
      `dogsled: warning: agent: cannot record ${spec.request.name} in parents.json: ${messageOf(error)}`,
    ),
  );
}

/**
 * The child's pane in its worktree's new workspace. Herdr's `worktree open` takes no environment, so
 * the child gets a tab of its own there that carries it, and the empty root shell the open made goes.
 */
async function worktreeTab(
  io: AgentLaunchIO,
  port: TerminalPort,
  worktree: BranchWorktree,
  label: string,
  env: Record<string, string>,
): Promise<Pane> {
  const tab = await port.createTab({
    workspaceId: worktree.workspace,
    cwd: worktree.path,
    label,
    focus: false,
    env,
  });
  await port
    .closePane(worktree.pane)
    .catch((error: unknown) =>
      io.warn(`dogsled: warning: agent: cannot close the empty pane ${worktree.pane}: ${messageOf(error)}`),
    );
  return tab.root_pane;
}

/** The error of a launch that did not start, naming the child and host, with the pane's last line. */
function failure(
  request: AgentRequest,
  host: string,
  why: string,
  recent: string | null,
  cause?: unknown,
): DogsledError {
  const tail =
    recent === null ? '' : `; recent output: ${squeezedLine(recent.split('\n').slice(-3).join(' | '), 300)}`;
  const message = `cannot start agent ${request.name} on ${host}: ${squeezedLine(why)}${tail}`;
  if (cause instanceof DogsledError) return new DogsledError(message, { cause });
  return new DogsledError(message, cause === undefined ? {} : { cause });
}

/**
 * A launch refused at its record (the id was ended elsewhere): its task file goes, and a worktree
 * it created goes when the loss rule lets it (a reused one stays as it was).
 */
async function undoTaken(
  io: AgentLaunchIO,
  port: TerminalPort,
  task: string,
  worktree: BranchWorktree | null,
): Promise<void> {
  await rm(task, { force: true }).catch(() => undefined);
  if (worktree === null) return;
  const stays = await discardCreatedWorktree({ ...io, signal: undefined, port }, worktree);
  if (stays !== null) io.warn(`dogsled: warning: agent: ${stays}`);
}

/** A launch that ended before any try: its record is final and its item closed. */
async function endLaunch(io: AgentLaunchIO, spec: AgentLaunchSpec, state: 'failed', error: string) {
  const undo = { ...io, signal: undefined };
  await updateLaunchRecord(undo, spec.request.launch, (current) =>
    current.attempts === 0 ? { ...current, state, error } : undefined,
  ).catch(() => undefined);
  await closeItem(undo, spec.itemId, 'launch failed').catch(() => undefined);
}

async function closeItem(io: AgentLaunchIO, id: string, reason: string): Promise<void> {
  const now = io.now();
  await changeItem({ ...io, signal: undefined }, id, (item) =>
    item.closed_ms === null ? { ...item, closed_ms: now, close_reason: reason } : item,
  );
}

async function changeItem(io: AgentLaunchIO, id: string, change: (item: Item) => Item): Promise<Item> {
  return updateItems(io, (items) => {
    const index = items.items.findIndex((entry) => entry.id === id);
    const entry = items.items[index];
    if (entry === undefined) throw new DogsledError(`item ${id} is no longer in items.json`);
    const next = change(entry);
    if (next === entry) return { result: entry };
    const list = items.items.slice();
    list[index] = next;
    return { result: next, next: { ...items, items: list } };
  });
}

/** The LAUNCH_BACKOFF_SCALE knob shrinks the 10 s backoff for tests. */
function backoffScale(env: NodeJS.ProcessEnv): number {
  return testKnob(env, 'LAUNCH_BACKOFF_SCALE') ?? 1;
}
