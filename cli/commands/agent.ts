// `dogsled agent --kind K --name N (--message T | --message-file PATH|-) [--profile P] [--branch B
// [--base R]] [--host H] [--cwd D] [--wait] [--max D] [--json]`: reads the task, hands it to
// service/actions/agent.ts and prints the started child, or the ticket when every host is full (exit 1;
// with --wait, the child the service started once it admitted the ticket).

import { type AgentOutcome, runAgent } from '../../service/actions/agent.js';
import { Deadline } from '../../service/actions/call-budget.js';
import { readMessage } from '../../service/actions/message-input.js';
import type { UserIO } from '../../service/actions/verb-io.js';
import { requestedKind } from '../../service/core/agents/launch-line.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { EXIT } from '../../service/core/common/exit-codes.js';
import type { CliContext } from '../context.js';
import { cwdFlag, hostFlag, maxFlag } from '../flags.js';
import { hostIO } from '../io.js';
import type { AgentStarted, StillQueued } from '../output-schemas.js';
import { queuedLine, staysQueued, whyQueued } from '../render/queued.js';
import { untilStopped } from '../stop-signal.js';

export interface AgentFlags {
  kind?: string;
  name?: string;
  message?: string;
  messageFile?: string;
  profile?: string;
  branch?: string;
  base?: string;
  host?: string;
  cwd?: string;
  wait?: boolean;
  max?: string;
  json?: boolean;
}

export async function agentCommand(flags: AgentFlags, ctx: CliContext): Promise<number> {
  const deadline = Deadline.fromProcessStart(maxFlag(flags.max));
  const kind = requestedKind(flags.kind, flags.profile);
  if (kind === null) throw new DogsledError('--kind is required: pi, claude or codex (a --profile means pi)');
  if (flags.name === undefined) throw new DogsledError('--name is required');
  const task = await readMessage(flags, { stdin: process.stdin, stdinFd: 0 });
  const pin = hostFlag(flags.host);
  const cwd = await cwdFlag(flags.cwd);
  const io = await hostIO(ctx);
  const work = {
    kind,
    name: flags.name,
    task,
    profile: flags.profile ?? null,
    branch: flags.branch ?? null,
    base: flags.base ?? null,
    cwd,
    pin,
    wait: Boolean(flags.wait),
  };
  const user: UserIO = {
    // The spec prints the ticket as JSON (--json); a --json wait keeps stdout for its one final
    // document, and a human wait for the child it starts.
    queued: (queued) => {
      const { ticket } = queued;
      if (!flags.json && !flags.wait) {
        ctx.out(`${queuedLine(queued)}\n`);
        return;
      }
      if (!flags.wait) ctx.out(`${JSON.stringify({ queued: true, ticket: ticket.id })}\n`);
      const waiting = flags.wait ? '; waiting for its admission' : '';
      ctx.warn(`dogsled: agent: queued as ${ticket.id}: ${whyQueued(queued)}${waiting}`);
    },
    untilStopped,
  };
  const outcome = await runAgent({ ...io, ...user }, work, deadline);
  return render(outcome, flags, ctx);
}

function render(outcome: AgentOutcome, flags: AgentFlags, ctx: CliContext): number {
  if (outcome.kind === 'queued') return EXIT.queued;
  if (outcome.kind === 'still-queued') {
    const id = outcome.ticket.id;
    if (outcome.why === 'interrupted') {
      ctx.warn(staysQueued('agent', id, 'interrupted'));
      return EXIT.interrupted;
    }
    const still: StillQueued = { queued: true, ticket: id, still_running: true };
    ctx.out(flags.json ? `${JSON.stringify(still)}\n` : 'still running\n');
    ctx.warn(staysQueued('agent', id, 'deadline'));
    return EXIT.stillRunning;
  }
  const { record } = outcome;
  if (flags.json) {
    const doc: AgentStarted = {
      queued: false,
      launch: record.id,
      item: outcome.item.id,
      name: record.name,
      kind: record.kind,
      host: record.host,
      label: outcome.label,
      pane: record.pane,
      terminal_id: record.terminal_id,
      workspace: record.workspace,
      profile: record.profile,
      model: record.model,
      role: record.role,
      cwd: record.cwd,
      branch: record.branch,
      worktree: record.worktree,
      ...(outcome.ticket === undefined ? {} : { ticket: outcome.ticket }),
    };
    ctx.out(`${JSON.stringify(doc)}\n`);
    return EXIT.ok;
  }
  const where = record.worktree === null ? '' : ` in ${record.worktree} (branch ${record.branch})`;
  ctx.out(`started ${record.name} (${record.kind}) on ${outcome.label}, pane ${record.pane}${where}\n`);
  return EXIT.ok;
}
