// `dogsled serve [--interval N] [--once]`: wires the real probe, clock and signals into the
// publication loop. SIGTERM and SIGINT stop it cleanly (lock released, exit 0).

import { hostname } from 'node:os';
import { stallThreshold } from '../../service/core/stall.js';
import { realAgentLane } from '../../service/daemon/agent-lane-real.js';
import { serve } from '../../service/daemon/serve.js';
import { LOCAL_HOST } from '../../service/hosts/local.js';
import { type ProbeDeps, probeHost, rootedReader } from '../../service/probe/index.js';
import { VERSION } from '../../service/version.js';
import type { CliContext } from '../context.js';
import { intervalFlag } from '../flags.js';
import { commandIO } from '../io.js';
import { untilStopped } from '../stop-signal.js';

/** How long a tick waits for Herdr and the pane reads before publishing the last known panes. */
const AGENT_READ_BUDGET_MS = 5_000;

export interface ServeFlags {
  interval: string;
  once?: boolean;
}

/**
 * The real machine, except in tests: with DOGSLED_TEST=1, DOGSLED_TEST_PROBE_ROOT points the Linux
 * probe at a fixture tree of /proc and cgroup files so a test controls what the service measures.
 */
function probeDeps(ctx: CliContext): Partial<ProbeDeps> {
  const root = ctx.env.DOGSLED_TEST === '1' ? ctx.env.DOGSLED_TEST_PROBE_ROOT : undefined;
  return root ? { home: ctx.home, read: rootedReader(root), platform: 'linux' } : { home: ctx.home };
}

export async function serveCommand(flags: ServeFlags, ctx: CliContext): Promise<number> {
  const intervalMs = intervalFlag(flags.interval);
  const io = await commandIO(ctx);
  const stall = stallThreshold(ctx.env.DOGSLED_TEST_STALL_MS);
  if (stall.warning) ctx.warn(`dogsled: warning: ${stall.warning}`);
  const agents = await realAgentLane({
    paths: io.paths,
    intervalMs,
    env: ctx.env,
    home: ctx.home,
    now: io.now,
    warn: ctx.warn,
    stallAfterMs: stall.ms,
    budgetMs: Math.min(AGENT_READ_BUDGET_MS, intervalMs),
  });
  await untilStopped((signal) =>
    serve(
      {
        ...io,
        probe: () => probeHost(probeDeps(ctx)),
        identity: { ...LOCAL_HOST, hostname: hostname() },
        pid: process.pid,
        version: VERSION,
        agents,
        quota: { managementUrl: io.config.quota.management_url, env: ctx.env, platform: process.platform },
      },
      {
        intervalMs,
        once: Boolean(flags.once),
        signal,
        onStarted: () => {
          if (flags.once) return;
          ctx.warn(
            `dogsled serve: publishing ${io.paths.host} every ${intervalMs / 1000}s (pid ${process.pid})`,
          );
        },
      },
    ),
  );
  if (flags.once) ctx.out(`published ${io.paths.host}\n`);
  return 0;
}
