// The line transport's hold on a client that writes without reading its answers: past 16 MiB of
// unwritten answers it stops reading its input, and reads again once the answers drain. Real
// streams stand in for the pipes: a PassThrough for stdin, a Writable that takes nothing until
// released for stdout.

import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport } from '../../../cli/mcp/stdio-transport.js';

describe('LineTransport', () => {
  it('stops reading while more than 16 MiB of answers wait, and reads again once they drain', async () => {
    const input = new PassThrough();
    const held: Array<() => void> = [];
    const output = new Writable({
      highWaterMark: 1024 * 1024,
      write(_chunk, _encoding, callback) {
        held.push(callback);
      },
    });
    const delivered: unknown[] = [];
    const transport = new LineTransport({ input, output, warn: () => {} });
    transport.onmessage = (message) => delivered.push(message);
    await transport.start();
    input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toHaveLength(1);

    const big = { jsonrpc: '2.0' as const, id: 1, result: { text: 'x'.repeat(1024 * 1024) } };
    const sent: Array<Promise<void>> = [];
    for (let i = 0; i < 15; i++) sent.push(transport.send(big));
    expect(input.isPaused()).toBe(false);
    sent.push(transport.send(big), transport.send(big));
    expect(output.writableLength).toBeGreaterThan(16 * 1024 * 1024);
    expect(input.isPaused()).toBe(true);

    // Nothing read meanwhile: a line written now waits in the input.
    input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toHaveLength(1);

    // The client reads: every answer is written, and the waiting line is read.
    while (held.length > 0 || output.writableLength > 0) {
      held.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(sent);
    await new Promise((resolve) => setImmediate(resolve));
    expect(input.isPaused()).toBe(false);
    expect(delivered).toHaveLength(2);
    await transport.close();
  });
});
