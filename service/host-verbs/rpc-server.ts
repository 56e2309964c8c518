// `dogsled host rpc`: serves the verb table over frames on stdin/stdout for as long as the caller
// keeps the channel open (the pool keeps one per peer). Says hello first, runs requests side by side
// and answers each by its id, with a heartbeat each second while any request runs, so the caller
// can tell a slow verb from a hung host. A stream that stops being frames gets one fatal frame and
// the server ends: there is no way to find the next frame boundary in garbage. The fleet bus carries
// the same frames, one request per message (answerBusRequest).

import type { Readable, Writable } from 'node:stream';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { VERSION } from '../core/common/version.js';
import type { HostIO } from '../state/io.js';
import { encodeFrame, FrameDecoder } from '../transport/frames.js';
import { RequestSchema, WIRE_VERSION } from '../transport/wire.js';
import { HOST_VERBS, runVerb } from './verb-table.js';

export interface RpcServerOptions {
  input: Readable;
  output: Writable;
  /** This host's IO, read anew for each request: the policy may change while the channel lives. */
  io: () => Promise<HostIO>;
}

/** A reply as the wire carries it (transport/wire.ts ReplySchema). */
type ReplyFrame =
  | { t: 'res'; id: number; ok: true; value: unknown; code: number }
  | { t: 'res'; id: number; ok: false; error: string; code: number };

/** What a one-shot verb exits with on a bug (cli/main.ts), not a refusal. */
const EXIT_INTERNAL = 70;
/** Beats while requests run; the caller calls a channel hung only after silence longer than this. */
export const HEARTBEAT_MS = 1_000;

/** Resolves with the exit status once the input ends (0) or stops being frames (2). */
export async function serveRpc(options: RpcServerOptions): Promise<number> {
  const { input, output } = options;
  let open = true;
  const write = (frame: Buffer): void => {
    if (open) output.write(frame);
  };
  const send = (value: unknown): void => write(encodeFrame(value));
  // The caller went away: nobody is left to answer.
  output.on('error', () => {
    open = false;
  });
  send({ t: 'hello', wire: WIRE_VERSION, version: VERSION, verbs: Object.keys(HOST_VERBS) });

  const inFlight = new Set<Promise<void>>();
  let beat: NodeJS.Timeout | undefined;
  const track = (done: Promise<void>): void => {
    inFlight.add(done);
    beat ??= setInterval(() => send({ t: 'beat' }), HEARTBEAT_MS);
    done.finally(() => {
      inFlight.delete(done);
      if (inFlight.size === 0 && beat) {
        clearInterval(beat);
        beat = undefined;
      }
    });
  };
  const decoder = new FrameDecoder();
  let status = 0;
  try {
    for await (const chunk of input) {
      for (const frame of decoder.push(chunk as Buffer)) {
        const request = RequestSchema.safeParse(frame);
        if (!request.success) throw new DogsledError('host rpc: a frame is not a request');
        track(answer(request.data, options.io).then((reply) => write(replyFrame(reply))));
      }
    }
  } catch (error) {
    send({ t: 'fatal', error: messageOf(error) });
    status = 2;
  }
  await Promise.all(inFlight);
  await new Promise<void>((resolve) => (open ? output.end(resolve) : resolve()));
  return status;
}

async function answer(
  request: { id: number; verb: string; args: string[]; input?: Uint8Array | undefined },
  io: () => Promise<HostIO>,
): Promise<ReplyFrame> {
  const { id } = request;
  try {
    const input = request.input ? Buffer.from(request.input) : Buffer.alloc(0);
    const result = await runVerb(request.verb, request.args, { ...(await io()), input });
    return { t: 'res', id, ok: true, value: result.value ?? null, code: result.exitCode ?? 0 };
  } catch (error) {
    if (error instanceof DogsledError) {
      return { t: 'res', id, ok: false, error: error.message, code: error.exitCode };
    }
    return { t: 'res', id, ok: false, error: `internal error: ${messageOf(error)}`, code: EXIT_INTERNAL };
  }
}

/**
 * One request that came over the fleet bus (`dogsled.rpc.<id>`): the message is one request frame,
 * the answer one reply frame, or a fatal frame for a message that is not exactly one request.
 */
export async function answerBusRequest(message: Uint8Array, io: () => Promise<HostIO>): Promise<Buffer> {
  let frames: unknown[];
  try {
    frames = new FrameDecoder().push(Buffer.from(message.buffer, message.byteOffset, message.byteLength));
  } catch {
    frames = [];
  }
  const request = frames.length === 1 ? RequestSchema.safeParse(frames[0]) : undefined;
  if (!request?.success) return encodeFrame({ t: 'fatal', error: 'host rpc: a message is not one request' });
  return replyFrame(await answer(request.data, io));
}

/** The reply as a frame; one msgpack cannot carry (over the frame limit) is a refusal saying so. */
function replyFrame(reply: ReplyFrame): Buffer {
  try {
    return encodeFrame(reply);
  } catch (error) {
    return encodeFrame({ t: 'res', id: reply.id, ok: false, error: messageOf(error), code: EXIT_INTERNAL });
  }
}
