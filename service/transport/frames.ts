// The RPC wire: each frame is a 4-byte big-endian length and that many bytes of msgpack. Frames
// arrive split and joined in any way a stream likes; the decoder hands out whole ones. A length past
// the limit means the stream is not ours (a shell banner, a wrong remote_command) and ends it.

import { Packr } from 'msgpackr';

/** No honest frame comes near this; a bigger length is garbage read as a length. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;
const HEADER = 4;

// Plain maps and arrays only: no msgpackr records or extensions, so any msgpack reader can follow.
const packr = new Packr({ useRecords: false, moreTypes: false, mapsAsObjects: true });

export class FrameError extends Error {
  override readonly name = 'FrameError';
}

export function encodeFrame(value: unknown): Buffer {
  const body = packr.pack(value);
  if (body.length > MAX_FRAME_BYTES) throw new FrameError(`frame of ${body.length} bytes is over the limit`);
  const frame = Buffer.allocUnsafe(HEADER + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, HEADER);
  return frame;
}

export class FrameDecoder {
  private pending: Buffer[] = [];
  private size = 0;

  /** Whole frames completed by `chunk`, decoded; throws FrameError on a stream that is not frames. */
  push(chunk: Buffer): unknown[] {
    return this.pushSized(chunk).map((frame) => frame.value);
  }

  /** As push, with each frame's body length (what a reader bounds a reply by). */
  pushSized(chunk: Buffer): Array<{ value: unknown; bytes: number }> {
    this.pending.push(chunk);
    this.size += chunk.length;
    const frames: Array<{ value: unknown; bytes: number }> = [];
    while (this.size >= HEADER) {
      const head = this.peek(HEADER);
      const length = head.readUInt32BE(0);
      if (length > MAX_FRAME_BYTES) {
        throw new FrameError(`stream is not dogsled frames (a length of ${length} bytes)`);
      }
      if (this.size < HEADER + length) break;
      const body = this.take(HEADER + length).subarray(HEADER);
      try {
        frames.push({ value: packr.unpack(body), bytes: length });
      } catch (error) {
        throw new FrameError(`a frame is not msgpack: ${(error as Error).message}`);
      }
    }
    return frames;
  }

  /** Bytes received that do not yet make a whole frame. */
  get buffered(): number {
    return this.size;
  }

  /** The body length the next frame announced, once its header is in; undefined before. */
  get announced(): number | undefined {
    return this.size >= HEADER ? this.peek(HEADER).readUInt32BE(0) : undefined;
  }

  private peek(n: number): Buffer {
    if ((this.pending[0]?.length ?? 0) < n) this.pending = [Buffer.concat(this.pending)];
    return this.pending[0] as Buffer;
  }

  private take(n: number): Buffer {
    const all = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    const taken = all.subarray(0, n);
    const rest = all.subarray(n);
    this.pending = rest.length > 0 ? [rest] : [];
    this.size = rest.length;
    return taken;
  }
}
