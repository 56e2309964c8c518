// The MCP tools (spec, "Tools"): each parses its arguments (inputs.ts, then the CLI's flag parsers),
// calls the one service function its command calls, and answers with what that command prints:
// the `--json` document where the command has one, else its line. Nothing here waits for work: `run`
// and `place` answer with the job or the queued ticket at once, `spawn` (agent-tools.ts) always with
// its ticket. The caller is HERDR_PANE_ID of the harness that started `dogsled mcp`, as the service
// functions read it from the environment.

import { Deadline } from '../../service/actions/call-budget.js';
import { cancelPending } from '../../service/actions/cancel.js';
import { listMyInbox } from '../../service/actions/inbox-action.js';
import { sendAnywhere } from '../../service/actions/peer-actions.js';
import { placeRequest } from '../../service/actions/place.js';
import { runJob } from '../../service/actions/run.js';
import { readStatus } from '../../service/actions/status.js';
import { stopJobRef } from '../../service/actions/stop.js';
import { cwdFlag, hostFlag, optionalDurationFlag } from '../flags.js';
import { hostIO, lazyHostIO } from '../io.js';
import type { Placed, Queued, RunStarted } from '../output-schemas.js';
import { inboxListJson } from '../render/inbox.js';
import { sentLine } from '../render/send-line.js';
import { CLOSE, DONE, READ, SPAWN } from './agent-tools.js';
import {
  type CancelArgs,
  CancelInput,
  CancelJson,
  InboxInput,
  InboxJson,
  type PlaceArgs,
  PlaceInput,
  PlaceJson,
  type RunArgs,
  RunInput,
  RunJson,
  type SendArgs,
  SendInput,
  SendJson,
  StatusInput,
  StatusJson,
  type StopArgs,
  StopInput,
  StopJson,
} from './inputs.js';
import { TOOL_CALL_MS, type ToolDefinition, tool } from './tool.js';

export { TOOL_CALL_MS, type ToolAnswer, type ToolDefinition } from './tool.js';

const STATUS = tool(
  'status',
  'Hosts, agents, reservations, open items and queued tickets, as `dogsled status --json` prints them.',
  [StatusInput, StatusJson],
  async (_args: object, ctx) => ({ json: await readStatus(await hostIO(ctx)) }),
);

const PLACE = tool(
  'place',
  'Reserve room on the host with the most headroom for 90 seconds, as `dogsled place --json`: the ' +
    'reservation, or {"queued":true,"ticket":…} when every host is full (the service admits it later).',
  [PlaceInput, PlaceJson],
  async (args: PlaceArgs, ctx) => {
    const pin = hostFlag(args.host);
    const io = await hostIO(ctx);
    const outcome = await placeRequest(io, { pin, wait: false }, new Deadline(TOOL_CALL_MS));
    if (outcome.kind !== 'placed')
      return { json: { queued: true, ticket: outcome.ticket.id } satisfies Queued };
    const doc: Placed = {
      placed: true,
      host: outcome.host,
      label: outcome.label,
      reservation: outcome.reservation.id,
      expires_ms: outcome.reservation.expires_ms,
    };
    return { json: doc };
  },
);

const RUN = tool(
  'run',
  'Run a command (an argv, never a shell string) as a job on the host with room, as `dogsled run ' +
    '--json -- CMD...`: the started job and its item, or the queued ticket, at once. Follow it with ' +
    '`dogsled logs JOB --follow`; stop it with the stop tool.',
  [RunInput, RunJson],
  async (args: RunArgs, ctx) => {
    const timeout = optionalDurationFlag('--timeout', args.timeout);
    const idleTimeout = optionalDurationFlag('--idle-timeout', args.idle_timeout);
    const pin = hostFlag(args.host);
    const cwd = await cwdFlag(args.cwd);
    const io = await hostIO(ctx);
    const request = {
      command: args.command,
      cwd,
      timeoutMs: timeout ?? null,
      idleTimeoutMs: idleTimeout ?? null,
      pin,
      wait: false,
    };
    // Nothing is followed without a wait, so the job's output never reaches this stdout.
    const outcome = await runJob(io, request, new Deadline(TOOL_CALL_MS));
    if (outcome.kind === 'queued')
      return { json: { queued: true, ticket: outcome.ticket.id } satisfies Queued };
    if (outcome.kind !== 'started') throw new Error(`run without a wait ended as ${outcome.kind}`);
    const { job, item } = outcome;
    const doc: RunStarted = { queued: false, job: job.id, item: item.id, host: job.host, pane: job.pane };
    return { json: doc };
  },
);

const SEND = tool(
  'send',
  "Send a message to an agent's inbox (its name or pane id; `host` for a peer's agent), as `dogsled send`.",
  [SendInput, SendJson],
  async (args: SendArgs, ctx) => {
    const request = {
      target: args.target,
      host: args.host ?? null,
      kind: args.kind ?? 'message',
      text: args.message,
    };
    return { line: sentLine(await sendAnywhere(ctx, request, () => hostIO(ctx))) };
  },
);

const INBOX = tool(
  'inbox',
  "This agent's inbox (its Herdr terminal): what it received, whole, and what it sent, as " +
    '`dogsled inbox list --json`.',
  [InboxInput, InboxJson],
  async (_args: object, ctx) => ({ json: JSON.parse(inboxListJson(await listMyInbox(ctx), ctx.now())) }),
);

const STOP = tool(
  'stop',
  'Stop a job (by its id or the ticket a queued run returned): kill its process group, as `dogsled stop --json`. A ticket still queued is cancelled with the cancel tool instead.',
  [StopInput, StopJson],
  async (args: StopArgs, ctx) => {
    // The job here or on the peer that runs it, as `dogsled stop` finds it.
    const outcome = await stopJobRef(lazyHostIO(ctx), args.job);
    return { json: outcome.kind === 'settled' ? outcome.ticket : outcome.record };
  },
);

const CANCEL = tool(
  'cancel',
  'Cancel a pending ticket, as `dogsled cancel --json`; an admitted one is stopped with the stop tool.',
  [CancelInput, CancelJson],
  async (args: CancelArgs, ctx) => ({ json: await cancelPending(ctx, args.ticket) }),
);

/** The spec's tools, in its order. */
export const TOOLS: ToolDefinition[] = [
  STATUS,
  SPAWN,
  RUN,
  SEND,
  INBOX,
  READ,
  CLOSE,
  DONE,
  STOP,
  CANCEL,
  PLACE,
];
