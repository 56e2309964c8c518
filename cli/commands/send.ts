// `dogsled send NAME|PANE [--host H] [--kind K] (--message TEXT | --message-file PATH|-)`: one
// record into an agent's inbox on this host or a peer. The text comes from the flag, a file, or stdin with
// `-`; the action (resolution, the reader check, the write) is service/inbox/send.ts, on the peer
// through service/actions/peer-actions.ts.

import { open } from 'node:fs/promises';
import { checkSendOptions, sendAnywhere } from '../../service/actions/peer-actions.js';
import { DogsledError, fileErrorText } from '../../service/core/common/errors.js';
import { MESSAGE_MAX_BYTES } from '../../service/core/inbox/inbox.js';
import { plainLine } from '../../service/core/text/text-clean.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';
import { sentLine } from '../render/send-line.js';

export interface SendFlags {
  host?: string;
  kind?: string;
  message?: string;
  messageFile?: string;
}

async function readBounded(chunks: AsyncIterable<Buffer | string>, what: string): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MESSAGE_MAX_BYTES) {
      throw new DogsledError(`send: ${what} is larger than ${MESSAGE_MAX_BYTES} bytes; nothing was sent`);
    }
    parts.push(buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The message text: `--message`, a file, or stdin for `--message-file -`. Read whole, bounded. */
async function messageText(flags: SendFlags): Promise<string> {
  if ((flags.message === undefined) === (flags.messageFile === undefined)) {
    throw new DogsledError('send: give the text with exactly one of --message and --message-file');
  }
  if (flags.message !== undefined) return flags.message;
  const path = flags.messageFile as string;
  if (path === '-') return readBounded(process.stdin, 'the message on stdin');
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new DogsledError(`send: --message-file ${plainLine(path)}: ${fileErrorText(error)}`);
  }
  try {
    return await readBounded(
      handle.createReadStream({ autoClose: false }),
      `--message-file ${plainLine(path)}`,
    );
  } catch (error) {
    if (error instanceof DogsledError) throw error;
    throw new DogsledError(`send: --message-file ${plainLine(path)}: ${fileErrorText(error)}`);
  } finally {
    await handle.close();
  }
}

export async function sendCommand(target: string, flags: SendFlags, ctx: CliContext): Promise<number> {
  checkSendOptions(flags.kind ?? 'message');
  const text = await messageText(flags);
  const request = { target, host: flags.host ?? null, kind: flags.kind ?? 'message', text };
  ctx.out(`${sentLine(await sendAnywhere(ctx, request, () => hostIO(ctx)))}\n`);
  return 0;
}
