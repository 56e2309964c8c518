// The host verbs' carriage on the fleet bus, against a real nats-server (2.9) with a small message
// limit: a request travels as one `host rpc` frame to `dogsled.rpc.<id>`, the verb table answers it
// (the real echo verb, every argument as data), and a reply longer than the server's limit comes
// back in several messages joined into one. Nobody on the subject is `no responder`, silence is a
// `timeout` at the call's deadline, a reply over the caller's bound is refused, a message that is
// not one request gets a fatal frame, the server gone under a call is `connection lost`, and an
// abort ends the call at once.

import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusTransport, commandBusTransport } from '../../../service/bus/rpc-client.js';
import { BusResponder } from '../../../service/bus/rpc-serve.js';
import { answerBusRequest } from '../../../service/host-verbs/rpc-server.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import type { HostIO } from '../../../service/state/io.js';
import { statePaths } from '../../../service/state/paths.js';
import { encodeFrame, FrameDecoder } from '../../../service/transport/frames.js';
import { UnreachableError } from '../../../service/transport/types.js';
import { NatsServer } from '../../helpers/nats-server.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const LIMIT = 64 * 1024;

let nats: NatsServer;
let hostIO: HostIO;

beforeAll(async () => {
  nats = await NatsServer.start(`max_payload: ${LIMIT}`);
  const dir = await tempDir('dogsled-bus-rpc-');
  hostIO = {
    paths: statePaths(join(dir, 'state')),
    now: () => Date.now(),
    warn: () => {},
    config: structuredClone(DEFAULT_CONFIG),
    env: { PATH: process.env.PATH },
    home: dir,
  };
});

afterAll(async () => {
  await nats?.stop();
});

const fleet = () => ({ ...structuredClone(DEFAULT_CONFIG).fleet, bus: [nats.url], id: 'caller' });
const target = (bus: string) => ({ host: 'bus', remoteCommand: ['dogsled'], bus });

/** Answers as the service does; `big` answers with `n` bytes, `hang` never. */
async function answering(id: string) {
  const nc = await connect({ servers: nats.url });
  const held = { hangs: 0 };
  const responder = await BusResponder.start(nc, id, async (request) => {
    let frame: { verb?: string; args?: string[] } | undefined;
    try {
      [frame] = new FrameDecoder().push(Buffer.from(request)) as Array<typeof frame>;
    } catch {
      // Not frames: the table's own answer says so.
    }
    if (frame?.verb === 'big') {
      const n = Number(frame.args?.[0]);
      return encodeFrame({ t: 'res', id: 0, ok: true, value: 'x'.repeat(n), code: 0 });
    }
    if (frame?.verb === 'hang') {
      held.hangs += 1;
      return new Promise<Uint8Array>(() => {});
    }
    return answerBusRequest(request, async () => hostIO);
  });
  return {
    nc,
    held,
    async close() {
      responder.stop();
      await nc.close();
    },
  };
}

describe('host verbs on the bus', () => {
  it('runs a verb of the table with its arguments as data, and joins a reply past the message limit', async () => {
    const host = await answering('bravo');
    const transport = commandBusTransport({ fleet: fleet() });
    try {
      const words = ['-rf', '$(id)', 'a\nb', "it's", ''];
      const echo = await transport.exec(target('bravo'), ['echo', ...words], { input: 'on stdin' });
      expect(echo).toMatchObject({ ok: true, exitCode: 0 });
      expect(echo.ok && echo.value).toMatchObject({ args: words, input: 'on stdin' });
      const size = 5 * LIMIT + 123;
      const big = await transport.exec(target('bravo'), ['big', String(size)]);
      expect(big.ok && (big.value as string).length).toBe(size);
      // A verb's own refusal is a reply, never an unreachable host.
      const refused = await transport.exec(target('bravo'), ['nosuch']);
      expect(refused).toMatchObject({ ok: false, exitCode: 2 });
      expect(!refused.ok && refused.error).toMatch(/^host: unknown verb "nosuch"/);
    } finally {
      await transport.close();
      await host.close();
    }
  });

  it('is no responder with nobody on the subject, a timeout on silence, refused over the bound', async () => {
    const host = await answering('bravo');
    const transport = commandBusTransport({ fleet: fleet() });
    try {
      const nobody = transport.exec(target('nobody'), ['echo']);
      await expect(nobody).rejects.toBeInstanceOf(UnreachableError);
      await expect(nobody).rejects.toMatchObject({ host: 'nobody', category: 'no responder' });
      await expect(transport.exec(target('bravo'), ['hang'], { timeoutMs: 300 })).rejects.toMatchObject({
        category: 'timeout',
      });
      await expect(
        transport.exec(target('bravo'), ['big', String(3 * LIMIT)], { maxReplyBytes: LIMIT }),
      ).rejects.toMatchObject({ category: 'remote command failed' });
      const aborter = new AbortController();
      const aborted = transport.exec(target('bravo'), ['hang'], { signal: aborter.signal });
      aborter.abort(new Error('the caller stopped'));
      await expect(aborted).rejects.toThrow('the caller stopped');
    } finally {
      await transport.close();
      await host.close();
    }
  });

  it('answers a message that is not one request with a fatal frame', async () => {
    const host = await answering('bravo');
    const nc = await connect({ servers: nats.url });
    try {
      const reply = await nc.request(
        'dogsled.rpc.bravo',
        new TextEncoder().encode('\u001b]0;x\u0007garbage'),
      );
      const [frame] = new FrameDecoder().push(Buffer.from(reply.data));
      expect(frame).toEqual({ t: 'fatal', error: 'host rpc: a message is not one request' });
    } finally {
      await nc.close();
      await host.close();
    }
  });

  it('a call under way when the server goes is connection lost, at once', async () => {
    const host = await answering('bravo');
    const transport = commandBusTransport({ fleet: fleet() });
    try {
      const call = transport.exec(target('bravo'), ['hang'], { timeoutMs: 60_000 });
      await waitFor('the responder holding the request', () => host.held.hangs > 0);
      await nats.stop();
      await expect(call).rejects.toMatchObject({ category: 'connection lost' });
    } finally {
      await nats.resume();
      await transport.close();
      await host.close().catch(() => {});
    }
  });

  it('a service off the bus says bus down for its calls', async () => {
    const transport = new BusTransport(async () => {
      throw new UnreachableError('bus', 'bus down', 'not connected');
    });
    await expect(transport.exec(target('bravo'), ['echo'])).rejects.toMatchObject({
      host: 'bravo',
      category: 'bus down',
    });
  });
});
