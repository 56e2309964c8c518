// `dogsled dash [--port N]`: the live page (dash/server.ts) on 127.0.0.1, at a free port unless
// --port names one, with a token that is new each start. It prints the page's URL (token included:
// it is the key) on stdout and serves until SIGINT or SIGTERM. A broken config.toml is refused at
// once, as every command that reads it refuses it.

import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startDash } from '../../dash/server.js';
import { DashMemory } from '../../service/actions/dash.js';
import { startedUp } from '../../service/actions/timing-marks.js';
import { DogsledError } from '../../service/core/common/errors.js';
import type { CliContext } from '../context.js';
import { lazyHostIO } from '../io.js';
import { untilStopped } from '../stop-signal.js';

export interface DashFlags {
  port?: string;
}

/** `--port`: 1-65535; absent, a free port. */
export function portFlag(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65_535))
    throw new DogsledError(`--port: expected a port 1-65535, got "${text}"`);
  return port;
}

/** dist/dash beside the entry (dist/dogsled.cjs, or the link npm made to it). */
function assetsDir(): string {
  return join(dirname(realpathSync(process.argv[1] ?? '.')), 'dash');
}

export async function dashCommand(flags: DashFlags, ctx: CliContext): Promise<number> {
  const port = portFlag(flags.port);
  const io = lazyHostIO(ctx);
  await io.hostIO();
  return untilStopped(async (signal) => {
    const memory = new DashMemory(ctx.paths);
    // A page that runs until it is stopped writes its bundle's code cache once it has served a page.
    const options = { io, memory, assets: assetsDir(), signal, port, onFirstPage: startedUp };
    const server = await startDash(options).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
        throw new DogsledError(`127.0.0.1:${port} is in use: leave --port out for a free port`);
      throw error;
    });
    ctx.out(`${server.url}\n`);
    await server.closed;
    return 0;
  });
}
