// `dogsled serve [--interval N] [--once]`: wires the real probe, clock and signals into the
// publication loop. SIGTERM and SIGINT stop it cleanly (lock released, exit 0).

import { hostname } from 'node:os';
import { serve } from '../../service/daemon/serve.js';
import { LOCAL_HOST } from '../../service/hosts/local.js';
import { probeHost } from '../../service/probe/index.js';
import { VERSION } from '../../service/version.js';
import type { CliContext } from '../context.js';
import { commandIO, parseSeconds } from '../io.js';

export interface ServeFlags {
  interval: string;
  once?: boolean;
}

export async function serveCommand(flags: ServeFlags, ctx: CliContext): Promise<number> {
  const intervalMs = parseSeconds('--interval', flags.interval);
  const io = await commandIO(ctx);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    if (!flags.once) {
      ctx.warn(`dogsled serve: publishing ${io.paths.host} every ${intervalMs / 1000}s (pid ${process.pid})`);
    }
    await serve(
      {
        ...io,
        probe: () => probeHost({ home: ctx.home }),
        identity: { ...LOCAL_HOST, hostname: hostname() },
        pid: process.pid,
        version: VERSION,
      },
      { intervalMs, once: Boolean(flags.once), signal: controller.signal },
    );
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
  if (flags.once) ctx.out(`published ${io.paths.host}\n`);
  return 0;
}
