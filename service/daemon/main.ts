// The service's composition root: `dogsled serve` (and anything else that runs the service) calls
// runService with this host's IO, and it wires the real probe, the agent lane with its real
// readers, this process's identity, quota collection and the publication loop (serve.ts) together.

import { hostname } from 'node:os';
import { stallThreshold } from '../core/agents/stall.js';
import { testKnob } from '../core/common/test-knobs.js';
import { VERSION } from '../core/common/version.js';
import { enabledPeers } from '../hosts/fleet.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { peerTarget } from '../hosts/peer-cache.js';
import { type ProbeDeps, probeHost, rootedReader } from '../probe/index.js';
import { keepUnchangedRecords } from '../state/engine/read-memo.js';
import type { HostIO } from '../state/io.js';
import type { ConfigLocation } from '../state/paths.js';
import { realAgentLane } from './agents/agents-readers.js';
import { readFactsInChild } from './publish/facts-child.js';
import { type ServeOptions, serve } from './serve.js';

/** How long a tick waits for Herdr and the pane reads before publishing the last known panes. */
const AGENT_READ_BUDGET_MS = 5_000;

/**
 * Runs the service until `options.signal` aborts (or once, with `options.once`); `configFile`, the
 * config.toml `io.config` came from, is followed while it runs.
 */
export async function runService(
  io: HostIO & { configFile?: ConfigLocation },
  options: ServeOptions,
): Promise<void> {
  const { intervalMs } = options;
  keepYoungGenerationSmall();
  // Every tick reads the same state files, most of them unchanged for hours.
  keepUnchangedRecords();
  const stall = stallThreshold(testKnob(io.env, 'STALL_MS'));
  if (stall.warning) io.warn(`dogsled: warning: ${stall.warning}`);
  const agents = await realAgentLane({
    ...io,
    intervalMs,
    stallAfterMs: stall.ms,
    budgetMs: Math.min(AGENT_READ_BUDGET_MS, intervalMs),
  });
  await serve(
    {
      ...io,
      probe: () => probeHost(probeDeps(io)),
      identity: { ...LOCAL_HOST, hostname: hostname() },
      pid: process.pid,
      version: VERSION,
      agents,
      quota: {
        // Read when the quota worker starts; a changed management_url needs a restart.
        managementUrl: io.config.quota.management_url,
        platform: process.platform,
        // Read at each push, from the list the peers lane uses: a machine Herdr adds or disables
        // later is followed; the worker reports this read's warnings once, not every pass.
        peers: async (warn) =>
          (await enabledPeers({ ...io, warn })).map((peer) => peerTarget(peer, io.config.remote_command)),
      },
      warmSupervisor: {},
      facts: (signal) => readFactsInChild(io, signal),
    },
    options,
  );
}

/**
 * The real machine, except in tests: the PROBE_ROOT knob points the Linux probe at a fixture tree of
 * /proc and cgroup files so a test controls what the service measures.
 */
function probeDeps(io: HostIO): Partial<ProbeDeps> {
  const root = testKnob(io.env, 'PROBE_ROOT');
  return root ? { home: io.home, read: rootedReader(root), platform: 'linux' } : { home: io.home };
}

/**
 * V8 doubles the young generation each time the bytes surviving its collections add up to its size,
 * up to 16 MiB a semi-space (48 MiB of heap with its copy): a service living for days gets there
 * even at an idle pace, for some 30 MiB of resident memory a host gains nothing from (with fifty
 * agent panes, 95 MiB at a 1 s interval). A growth factor of 1 keeps it at its first size (1 MiB):
 * a tick's few megabytes of garbage cost a few more scavenges, each under a millisecond. The flag is
 * read at each growth, so setting it once the process runs is enough (`--max-semi-space-size` is
 * read only at start-up); the service is the only program that sets it.
 */
function keepYoungGenerationSmall(): void {
  process.getBuiltinModule('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
}
