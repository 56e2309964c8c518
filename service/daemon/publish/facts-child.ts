// The host's facts for its snapshots (state/schemas.ts HostFactsSchema): `dogsled host facts` run
// once as a child of serve when it starts, in the background, so systeminformation's load and the
// commands it runs (some of them synchronously, such as nvidia-smi) never stall publication. Until
// the child answers, snapshots carry `facts: null`; a child that fails leaves facts with its error.

import { messageOf } from '../../core/common/errors.js';
import { testKnob } from '../../core/common/test-knobs.js';
import type { HostFacts } from '../../core/fleet/fleet-types.js';
import { runProcess } from '../../process/run-process.js';
import { selfInvocation } from '../../process/self-invocation.js';
import type { ProcessIO } from '../../state/io.js';
import { HostFactsSchema } from '../../state/schemas/host-schemas.js';

/** systeminformation's commands answer in a second or two; a hung GPU tool must not keep a child. */
const FACTS_TIMEOUT_MS = 60_000;

/** The child's deadline; the FACTS_TIMEOUT_MS knob sets another for tests. */
function factsTimeout(env: NodeJS.ProcessEnv): number {
  return testKnob(env, 'FACTS_TIMEOUT_MS') ?? FACTS_TIMEOUT_MS;
}
const FACTS_MAX_BYTES = 1 << 20;

export interface FactsIO extends Pick<ProcessIO, 'env' | 'now' | 'warn'> {
  /** The argv prefix that runs dogsled (`[node, dist/dogsled.cjs]`); default: this process's. */
  self?: readonly string[];
}

/** Reads this host's facts in a child; resolves with them, or with facts that say why there are none. */
export async function readFactsInChild(io: FactsIO, signal: AbortSignal): Promise<HostFacts> {
  const [file, ...prefix] = io.self ?? selfInvocation();
  const failed = (why: string): HostFacts => {
    io.warn(`dogsled serve: host facts: ${why}`);
    return { read_ms: io.now(), os: null, cpu: null, memory_bytes: null, gpus: null, errors: [why] };
  };
  try {
    const result = await runProcess(file!, [...prefix, 'host', 'facts'], {
      env: io.env,
      timeoutMs: factsTimeout(io.env),
      signal,
      // Its own process group: a timeout takes what systeminformation started (a hung nvidia-smi) too.
      detached: true,
      maxOutputBytes: FACTS_MAX_BYTES,
    });
    if (result.aborted)
      return {
        read_ms: io.now(),
        os: null,
        cpu: null,
        memory_bytes: null,
        gpus: null,
        errors: ['serve stopped'],
      };
    if (result.exitCode !== 0) {
      const said = result.stderr.toString('utf8').trim().split('\n')[0] ?? '';
      return failed(
        `dogsled host facts ${result.timedOut ? 'timed out' : `exited with ${result.exitCode ?? result.signal}`}${said ? `: ${said}` : ''}`,
      );
    }
    const parsed = HostFactsSchema.safeParse(JSON.parse(result.stdout.toString('utf8')));
    return parsed.success ? parsed.data : failed('dogsled host facts printed no facts');
  } catch (error) {
    return failed(messageOf(error));
  }
}
