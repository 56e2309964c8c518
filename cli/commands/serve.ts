// `dogsled serve [--interval N] [--once]`: runs the service (service/daemon/main.ts) until SIGTERM
// or SIGINT, which stop it cleanly (lock released, exit 0).

import { runService } from '../../service/daemon/main.js';
import type { CliContext } from '../context.js';
import { intervalFlag } from '../flags.js';
import { hostIO } from '../io.js';
import { untilStopped } from '../stop-signal.js';

export interface ServeFlags {
  interval: string;
  once?: boolean;
}

export async function serveCommand(flags: ServeFlags, ctx: CliContext): Promise<number> {
  const intervalMs = intervalFlag(flags.interval);
  const io = await hostIO(ctx);
  const once = Boolean(flags.once);
  await untilStopped((signal) =>
    runService(
      { ...io, configFile: ctx.config },
      {
        intervalMs,
        once,
        signal,
        onStarted: () => {
          if (once) return;
          ctx.warn(
            `dogsled serve: publishing ${io.paths.host} every ${intervalMs / 1000}s (pid ${process.pid})`,
          );
        },
      },
    ),
  );
  if (once) ctx.out(`published ${io.paths.host}\n`);
  return 0;
}
