// `agent.start` over the socket returns at once, with the launch still pending (CONTRACT §4.2): the
// line is typed, nothing is known to run yet. The herdr CLI then polls until the agent is
// interactive-ready, which Herdr grants only at its first idle or blocked state (§4.4): for a child
// that works on its task from its launch prompt, the end of its whole first turn. The start is
// confirmed sooner than that: once Herdr detects the requested kind running in the launched
// terminal under our name and sees its state (working, idle, blocked, done; not `unknown`, which a
// process Herdr has only found, not yet read, still is), the harness runs, and that is what a
// launch waits for. The adapter polls
// `agent.get` every 100 ms until then (or until ready, whichever comes first), failing when the
// name, terminal or kind stops matching, when the launch stops pending before either, or at the
// deadline.

import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentStarted, StartAgentOptions } from '../port.js';
import { type Agent, AgentSchema, parseRecord } from '../port-records.js';
import { isTerminalError, TerminalError } from '../terminal-errors.js';
import { expectType } from './envelope.js';
import type { Transport } from './herdr-channel.js';

/** Herdr's own default start deadline, used when the caller gives none. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;
const POLL_MS = 100;

/** Kind aliases Herdr accepts on start but reports by their canonical label. */
const KIND_ALIASES: Record<string, string> = { 'claude-code': 'claude' };

function canonicalKind(kind: string): string {
  const lower = kind.toLowerCase();
  return KIND_ALIASES[lower] ?? lower;
}

export function startParams(options: StartAgentOptions): Record<string, unknown> {
  return {
    name: options.name,
    kind: options.kind,
    pane_id: options.paneId,
    ...(options.args ? { args: options.args } : {}),
    ...(options.timeoutMs === undefined ? {} : { timeout_ms: options.timeoutMs }),
  };
}

function parseAgent(value: unknown, method: string): Agent {
  return parseRecord(AgentSchema, value, method);
}

export async function startAgentWithReadiness(
  transport: Transport,
  options: StartAgentOptions,
  pollMs = POLL_MS,
): Promise<AgentStarted> {
  const method = 'agent.start';
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  const reply = expectType(
    await transport.call(method, startParams(options), { signal: options.signal }),
    'agent_started',
    method,
  );
  const pending = parseAgent(reply.agent, method);
  const argv = Array.isArray(reply.argv) ? (reply.argv as string[]) : undefined;
  const fail = (code: 'agent_start_failed' | 'agent_kind_mismatch' | 'agent_name_not_found', why: string) =>
    new TerminalError(code, `herdr agent start ${options.name}: ${why}`, { method });

  while (Date.now() < deadline) {
    await sleep(pollMs, undefined, options.signal ? { signal: options.signal } : {});
    const found = await lookUp(transport, options.name, options.paneId, options.signal);
    if (found?.by === 'name' && found.agent.terminal_id !== pending.terminal_id) {
      throw fail('agent_name_not_found', `the name ${options.name} no longer owns the launched terminal`);
    }
    if (!found || found.agent.terminal_id !== pending.terminal_id) {
      // Neither the name nor the pane leads to this terminal's agent: the process is gone.
      throw fail('agent_start_failed', 'the agent exited before it was ready');
    }
    const { agent } = found;
    if (agent.agent !== undefined && canonicalKind(agent.agent) !== canonicalKind(options.kind)) {
      throw fail('agent_kind_mismatch', `Herdr detected ${agent.agent}, not ${options.kind}`);
    }
    if (agent.name !== options.name) {
      throw fail('agent_name_not_found', `the name ${options.name} no longer owns the launched terminal`);
    }
    if (agent.interactive_ready) return argv ? { agent, argv } : { agent };
    // Herdr sees the harness it was asked for in the launched terminal, in a state of its own: the
    // child runs.
    if (agent.agent !== undefined && agent.agent_status !== 'unknown')
      return argv ? { agent, argv } : { agent };
    if (!agent.launch_pending)
      throw fail('agent_start_failed', 'the launch ended before the agent was ready');
  }
  // One more read so Herdr reconciles the expired launch and releases the name for reuse.
  await lookUp(transport, options.name, options.paneId, options.signal).catch(() => undefined);
  throw new TerminalError(
    'timeout',
    `herdr agent start ${options.name}: timed out waiting for agent startup`,
    { method },
  );
}

/** The agent by name, else by pane (a name Herdr cleared), else undefined when neither exists. */
async function lookUp(
  transport: Transport,
  name: string,
  paneId: string,
  signal: AbortSignal | undefined,
): Promise<{ agent: Agent; by: 'name' | 'pane' } | undefined> {
  const options = signal ? { signal } : {};
  const targets = [
    [name, 'name'],
    [paneId, 'pane'],
  ] as const;
  for (const [target, by] of targets) {
    try {
      const reply = await transport.call('agent.get', { target }, options);
      return { agent: parseAgent(expectType(reply, 'agent_info', 'agent.get').agent, 'agent.get'), by };
    } catch (error) {
      if (!isTerminalError(error, 'agent_not_found') && !isTerminalError(error, 'pane_not_found'))
        throw error;
    }
  }
  return undefined;
}
