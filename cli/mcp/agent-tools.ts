// The child-agent tools (spec, "Tools"): `spawn`, `read`, `close` and `done`, each calling the
// service function its command calls (service/actions/agent.ts, read.ts, close.ts, done.ts) and
// answering with that command's `--json`. `spawn` differs from `dogsled agent` on purpose: it always
// answers with a durable queued ticket, even when a host has room, and the service admits, launches
// and confirms the child outside the call (the owner's inbox hears of the start or its failure).

import { runAgent } from '../../service/actions/agent.js';
import { Deadline } from '../../service/actions/call-budget.js';
import { closePane } from '../../service/actions/close.js';
import { markDone } from '../../service/actions/done.js';
import { readTarget } from '../../service/actions/read.js';
import { cwdFlag, hostFlag } from '../flags.js';
import { hostIO } from '../io.js';
import type { Queued } from '../output-schemas.js';
import {
  type CloseArgs,
  CloseInput,
  CloseJson,
  DoneInput,
  DoneJson,
  type ReadArgs,
  ReadInput,
  ReadJson,
  type SpawnArgs,
  SpawnInput,
  SpawnJson,
} from './inputs.js';
import { TOOL_CALL_MS, tool } from './tool.js';

export const SPAWN = tool(
  'spawn',
  'Start a child agent (pi, claude or codex) with a task, as `dogsled agent` does, but without ' +
    'waiting for it: the answer is a queued ticket, {"queued":true,"ticket":…}, at once, even when a ' +
    'host has room. The dogsled service starts the child; your inbox hears when it started (or why ' +
    'it could not), and status and the board show it. Cancel the ticket with cancel while it waits.',
  [SpawnInput, SpawnJson],
  async (args: SpawnArgs, ctx) => {
    const pin = hostFlag(args.host);
    const cwd = await cwdFlag(args.cwd);
    const io = await hostIO(ctx);
    const work = {
      kind: args.kind,
      name: args.name,
      task: args.message,
      profile: args.profile ?? null,
      branch: args.branch ?? null,
      base: args.base ?? null,
      cwd,
      pin,
      wait: false,
      queue: true,
    };
    const outcome = await runAgent(io, work, new Deadline(TOOL_CALL_MS));
    if (outcome.kind === 'started') throw new Error('spawn started a child instead of queueing it');
    return { json: { queued: true, ticket: outcome.ticket.id } satisfies Queued };
  },
);

export const READ = tool(
  'read',
  "A child's or job's newest output and a child's captured final reply, as `dogsled read --json`.",
  [ReadInput, ReadJson],
  async (args: ReadArgs, ctx) => ({
    json: await readTarget(await hostIO(ctx), args.target, args.host ?? null),
  }),
);

export const CLOSE = tool(
  'close',
  'End a child now, as `dogsled close --json`: its pane closes, and its worktree only when no work ' +
    'would be lost (the branch is kept while it holds unlanded commits).',
  [CloseInput, CloseJson],
  async (args: CloseArgs, ctx) => ({
    json: await closePane(await hostIO(ctx), args.pane, args.host ?? null),
  }),
);

export const DONE = tool(
  'done',
  'As a child, in your final working turn after committing: mark your whole task complete, as ' +
    '`dogsled done --json`. End the turn with your final reply; dogsled hands it to your owner and ' +
    'closes your pane.',
  [DoneInput, DoneJson],
  async (_args: object, ctx) => ({ json: await markDone(await hostIO(ctx)) }),
);
