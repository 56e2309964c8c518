// `dogsled agent --kind K --name N (--message T | --message-file PATH|-) [--profile P] [--branch B
// [--base R]] [--host H] [--cwd D] [--wait] [--max D] [--json]`: reads the task, hands it to
// service/actions/agent.ts and prints the started child, or the ticket when every host is full (exit 1;
// with --wait, the child the service started once it admitted the ticket).

import { readFile } from 'node:fs/promises';
import { type AgentOutcome, runAgent, TASK_MAX_BYTES } from '../../service/actions/agent.js';
import { Deadline } from '../../service/actions/call-budget.js';
import type { UserIO } from '../../service/actions/verb-io.js';
import { requestedKind } from '../../service/core/agents/launch-line.js';
import { DogsledError, fileErrorText } from '../../service/core/common/errors.js';
import { EXIT } from '../../service/core/common/exit-codes.js';
import { shown } from '../../service/core/text/visible.js';
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
  const task = await taskText(flags);
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

/** `--message TEXT`, or the file `--message-file` names (`-`: stdin); exactly one of the two. */
async function taskText(flags: AgentFlags): Promise<string> {
  if ((flags.message === undefined) === (flags.messageFile === undefined)) {
    throw new DogsledError('give the task with exactly one of --message and --message-file');
  }
  if (flags.message !== undefined) return flags.message;
  const path = flags.messageFile as string;
  let bytes: Buffer;
  try {
    bytes = path === '-' ? await readStdin() : await readFile(path);
  } catch (error) {
    throw new DogsledError(`--message-file ${shown(path)}: ${fileErrorText(error)}`);
  }
  if (bytes.length > TASK_MAX_BYTES) {
    throw new DogsledError(`--message-file ${shown(path)}: over the ${TASK_MAX_BYTES}-byte limit`);
  }
  return bytes.toString('utf8');
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    chunks.push(buffer);
    // Stop reading a runaway stream early; the size check above reports it.
    if (size > TASK_MAX_BYTES) break;
  }
  return Buffer.concat(chunks);
}
