// `dogsled send NAME|PANE [--host H] [--kind K] (--message TEXT | --message-file PATH|-)`: one
// record into an agent's inbox on this host or a peer. The text comes from the flag, a file, or stdin
// with `-` (service/actions/message-input.ts, as for `agent`); the action (resolution, the reader
// check, the write) is service/inbox/send.ts, on the peer through service/actions/peer-actions.ts.

import { readMessage } from '../../service/actions/message-input.js';
import { checkSendOptions, sendAnywhere } from '../../service/actions/peer-actions.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';
import { sentLine } from '../render/send-line.js';

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
  ctx.out(`${sentLine(await sendAnywhere(ctx, request, () => hostIO(ctx)))}\n`);
  return 0;
}
