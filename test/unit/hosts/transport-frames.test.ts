import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder, FrameError, MAX_FRAME_BYTES } from '../../../service/transport/frames.js';

const REQUEST = {
  t: 'req',
  id: 7,
  verb: 'echo',
  args: ['-n', "it's", 'a\nb', '\u001b[31m'],
  input: Buffer.from([0, 255]),
};

describe('frames', () => {
  it('carries a request whole, its bytes as bytes', () => {
    const [frame] = new FrameDecoder().push(encodeFrame(REQUEST));
    expect(frame).toMatchObject({ t: 'req', id: 7, verb: 'echo', args: REQUEST.args });
    expect(Buffer.from((frame as { input: Uint8Array }).input)).toEqual(REQUEST.input);
  });

  it('hands out whole frames however the stream splits and joins them', () => {
    const stream = Buffer.concat([encodeFrame({ n: 1 }), encodeFrame({ n: 2 }), encodeFrame({ n: 3 })]);
    const decoder = new FrameDecoder();
    const seen: unknown[] = [];
    for (const byte of stream) seen.push(...decoder.push(Buffer.from([byte])));
    expect(seen).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(decoder.buffered).toBe(0);
    expect(new FrameDecoder().push(stream)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('keeps a partial frame until the rest arrives', () => {
    const frame = encodeFrame({ big: 'x'.repeat(100_000) });
    const decoder = new FrameDecoder();
    expect(decoder.push(frame.subarray(0, 50_000))).toEqual([]);
    expect(decoder.push(frame.subarray(50_000))).toEqual([{ big: 'x'.repeat(100_000) }]);
  });

  it("names each frame's length, and the length a frame announces before its body is in", () => {
    const frame = encodeFrame({ big: 'x'.repeat(100_000) });
    const decoder = new FrameDecoder();
    expect(decoder.announced).toBeUndefined();
    expect(decoder.pushSized(frame.subarray(0, 2))).toEqual([]);
    expect(decoder.announced).toBeUndefined();
    expect(decoder.pushSized(frame.subarray(2, 50_000))).toEqual([]);
    expect(decoder.announced).toBe(frame.length - 4);
    const [whole] = decoder.pushSized(frame.subarray(50_000));
    expect(whole?.bytes).toBe(frame.length - 4);
    expect(decoder.announced).toBeUndefined();
  });

  it('refuses a stream that is not frames (a shell banner read as a length)', () => {
    expect(() => new FrameDecoder().push(Buffer.from('Welcome to the peer\n'))).toThrow(FrameError);
    const tooLong = Buffer.alloc(4);
    tooLong.writeUInt32BE(MAX_FRAME_BYTES + 1);
    expect(() => new FrameDecoder().push(tooLong)).toThrow(/not dogsled frames/);
  });

  it('refuses a frame whose body is not msgpack', () => {
    // An array of two that holds one element: the body ends inside the value.
    const bad = Buffer.from([0, 0, 0, 2, 0x92, 0x01]);
    expect(() => new FrameDecoder().push(bad)).toThrow(FrameError);
  });
});
