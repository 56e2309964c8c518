// What `dogsled agent` does, for every caller (the CLI, and the MCP server and Pi extension later):
// check the launch line and profile, write the task file, submit (placed now, or a FIFO ticket behind
// waiting work or a full fleet, exactly as jobs), and launch a placed child here (agents/launch-agent.ts)
// or on the peer placement chose (remote-agent.ts).
// With `wait`, a queued ticket is waited for until the service admits (and launches) it.

import { rm } from 'node:fs/promises';
import { type AgentLaunched, checkAgentLine, checkHarness, launchAgent } from '../agents/launch-agent.js';
import { agentCallerEnvironment } from '../core/agents/agent-env.js';
import type { Item } from '../core/agents/item-types.js';
import type { LaunchRecord } from '../core/agents/launch-types.js';
import { DogsledError } from '../core/common/errors.js';
import { findHost } from '../core/placement/placement.js';
import type { AgentRequest, Ticket } from '../core/placement/queue-types.js';
import { enabledPeers } from '../hosts/fleet.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { callerWorkspaceOf } from '../jobs/tab-placement-facts.js';
import { submitWork } from '../queue/submit.js';
import { awaitTicket } from '../queue/ticket-wait.js';
import { newId } from '../state/engine/ids.js';
import type { HostIO } from '../state/io.js';
import { launchFiles, newLaunchId, readLaunchRecord, writeTaskFile } from '../state/records/launch-files.js';
import { readItems } from '../state/records/queue-items.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import { openTerminal } from '../terminal/open.js';
import type { TerminalPort } from '../terminal/port.js';
import { needsTerminal } from '../terminal/terminal-errors.js';
import type { Deadline } from '../time/deadline.js';
import { mark } from '../time/timing.js';
import { checkBranchRequest } from '../worktrees/branch-worktree.js';
import { launchRemoteAgent } from './remote-agent.js';
import type { UserHostIO } from './verb-io.js';

export interface AgentWork {
  kind: string;
  name: string;
  /** The task text (`--message`, or the file `--message-file` names). */
  task: string;
  profile: string | null;
  branch: string | null;
  base: string | null;
  /** An existing directory, as an absolute real path. */
  cwd: string;
  pin: string | null;
  wait: boolean;
  /**
   * Queue a ticket even when a host has room (the MCP `spawn`): the service admits and launches it,
   * and tells the owner, outside the caller's time budget.
   */
  queue?: boolean;
}

export type AgentOutcome =
  | ({ kind: 'started'; label: string; ticket?: string } & AgentLaunched)
  | { kind: 'queued'; ticket: Ticket }
  /** The deadline or the user ended the wait for the ticket (it stays pending). */
  | { kind: 'still-queued'; ticket: Ticket; why: 'deadline' | 'interrupted' };

/** The user hears of a ticket at once (UserIO.queued) and may interrupt the wait for it (untilStopped). */
export async function runAgent(io: UserHostIO, work: AgentWork, deadline: Deadline): Promise<AgentOutcome> {
  if (work.base !== null && work.branch === null) throw new DogsledError('--base needs --branch');
  let terminal: TerminalPort | undefined;
  const request: AgentRequest = {
    launch: newLaunchId(),
    kind: work.kind as AgentRequest['kind'],
    name: work.name,
    profile: work.profile,
    branch: work.branch,
    base: work.base,
    cwd: work.cwd,
    caller_workspace: null,
  };
  // A child pinned to a peer is checked there too: its profile, Herdr and checkout are the peer's.
  const onPeer = work.pin !== null && findHost([LOCAL_HOST], work.pin) === undefined;
  // The line is checked before anything exists: no task file, ticket or pane for a refused name.
  await checkAgentLine(io, onPeer && request.kind === 'pi' ? { ...request, profile: null } : request);
  const owner = callerPane(io.env);
  if (!onPeer) {
    const port = await deadline.step('finding Herdr', 'routine', () =>
      openTerminal({ env: io.env, home: io.home, commandName: 'agent', warn: io.warn }),
    );
    if (port.kind === 'headless') throw needsTerminal('agent', port.why);
    if (work.branch !== null) {
      const ask = { repo: work.cwd, branch: work.branch, base: work.base ?? undefined, command: 'agent' };
      await checkBranchRequest(ask, { ...io, terminal: port });
    }
    request.caller_workspace = await deadline.step("finding the caller's workspace", 'routine', () =>
      callerWorkspaceOf(port, owner).catch(() => null),
    );
    terminal = port;
  }
  // The child runs with the caller's PATH, here, on a peer (mapped to its home) or when the service
  // admits its ticket (agent-env.ts): pinned here, a harness missing from it is refused before
  // anything exists; a peer refuses it there, before anything exists there.
  const env = agentCallerEnvironment(io.env);
  if (work.pin !== null && !onPeer) await checkHarness(request, LOCAL_HOST.id, env);
  await writeTaskFile(io.paths, request.launch, work.task);
  const submission = {
    request: null,
    agent: request,
    pin: work.pin,
    owner,
    waiting: work.wait,
    queueAlways: work.queue === true,
    env,
  };
  const outcome = await deadline
    .step('placement', 'routine', (signal) => submitWork({ ...io, signal }, submission, 'agent'))
    .catch(async (error: unknown) => {
      await rm(launchFiles(io.paths, request.launch).task, { force: true }).catch(() => undefined);
      throw error;
    });
  mark(`agent: ${outcome.kind}`);
  if (outcome.kind === 'queued') {
    io.queued?.(outcome);
    if (!work.wait) return { kind: 'queued', ticket: outcome.ticket };
    const waited = await awaitTicket(io, outcome.ticket.id, deadline, io.untilStopped);
    if (waited.kind === 'gave-up') return { kind: 'still-queued', ticket: outcome.ticket, why: waited.why };
    const admitted = waited.ticket;
    return { ...(await launchedBy(io, admitted, request)), ticket: admitted.id };
  }
  if (outcome.host !== LOCAL_HOST.id) {
    const peer = (await enabledPeers(io)).find((p) => p.id === outcome.host);
    if (peer === undefined) throw new DogsledError(`host ${outcome.host} left the fleet while placing`);
    const remote = { itemId: newId('i'), request, task: work.task, owner, ticket: null, env };
    // The task lives on the host that runs the child: the copy here was only for a queued ticket.
    const launched = await launchRemoteAgent(
      io,
      peer,
      { ...remote, reservation: outcome.reservation.id },
      deadline,
    ).finally(() => rm(launchFiles(io.paths, request.launch).task, { force: true }).catch(() => undefined));
    return { kind: 'started', label: outcome.label, ...launched };
  }
  const port = terminal;
  const launched = await launchAgent(
    { ...io, ...(port === undefined ? {} : { terminal: async () => port }) },
    {
      itemId: newId('i'),
      request,
      owner,
      host: outcome.host,
      ticket: null,
      reservation: outcome.reservation.id,
      env,
    },
    deadline,
  );
  return { kind: 'started', label: outcome.label, ...launched };
}

/** What the service's admission launched for a ticket this caller waited for. */
async function launchedBy(
  io: HostIO,
  ticket: Ticket,
  request: AgentRequest,
): Promise<Extract<AgentOutcome, { kind: 'started' }>> {
  const item = (await readItems(io)).items.find((entry) => entry.id === ticket.item);
  // Admitted on a peer: its launch record is there; the owner's item, written from it, says the rest.
  const onPeer = ticket.host !== null && ticket.host !== LOCAL_HOST.id;
  const record =
    onPeer && item !== undefined
      ? recordOfItem(item, ticket, request)
      : await readLaunchRecord(io.paths, request.launch);
  if (record === undefined || item === undefined) {
    throw new DogsledError(
      `ticket ${ticket.id} was admitted, but its launch ${request.launch} left no record`,
    );
  }
  const host = ticket.host ?? record.host;
  const label = findHost([LOCAL_HOST], host)?.label ?? host;
  const worktree =
    record.worktree === null
      ? null
      : {
          path: record.worktree,
          branch: record.branch ?? '',
          repository: '',
          created: false,
          workspace: record.workspace ?? '',
          pane: record.pane ?? '',
          anchor: null,
        };
  return { kind: 'started', label, record, item, worktree };
}

/** A child started on a peer as its owner's item shows it (the task and contract files are there). */
function recordOfItem(item: Item, ticket: Ticket, request: AgentRequest): LaunchRecord {
  return {
    id: request.launch,
    ticket: ticket.id,
    item: item.id,
    owner: item.owner,
    host: item.host,
    name: item.name ?? request.name,
    kind: request.kind,
    profile: item.profile ?? request.profile,
    model: item.model ?? null,
    role: item.role ?? 'writer',
    cwd: item.cwd ?? request.cwd,
    branch: item.branch ?? null,
    worktree: item.worktree ?? null,
    pane: item.pane,
    terminal_id: item.terminal_id,
    workspace: null,
    task_file: '',
    contract_file: '',
    state: 'started',
    attempts: 1,
    error: null,
    recent_output: null,
    created_ms: item.created_ms,
    state_ms: ticket.state_ms,
    started_ms: ticket.state_ms,
  };
}
