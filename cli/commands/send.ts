// `dogsled send NAME|PANE [--host H] [--kind K] (--message TEXT | --message-file PATH|-)`: one
// record into an agent's inbox on this host or a peer. The text comes from the flag, a file, or stdin with
// `-` (service/inbox/message-source.ts, as for `agent`); the action (resolution, the reader check, the write) is service/inbox/send.ts, on the peer
// through service/actions/peer-actions.ts.

import { sendAnywhere } from '../../service/actions/peer-actions.js';
import { plainLine } from '../../service/core/text/clean.js';
import { readMessage } from '../../service/inbox/message-source.js';
import { checkSendOptions } from '../../service/inbox/send.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export interface SendFlags {
  host?: string;
  kind?: string;
  message?: string;
  messageFile?: string;
}

export async function sendCommand(target: string, flags: SendFlags, ctx: CliContext): Promise<number> {
  checkSendOptions(flags.kind ?? 'message');
  const text = await readMessage(flags, { stdin: process.stdin, stdinFd: 0 });
  const request = { target, host: flags.host ?? null, kind: flags.kind ?? 'message', text };
  const { record, to, waits } = await sendAnywhere(ctx, request, () => hostIO(ctx));
  const label = to.name ? `${plainLine(to.name)} (${plainLine(to.pane)})` : plainLine(to.pane);
  // Claude Code and Codex read their inbox from their hooks: an agent of theirs that is not
  // working sees the record only when it next acts (spec, "Inbox").
  const later = waits
    ? `: it is ${plainLine(waits.state)}, so ${plainLine(waits.harness)} reads ${record.id} at its next prompt or stop`
    : '';
  ctx.out(`sent ${record.id} to ${label}${later}\n`);
  return 0;
}
