// `herdr agent start`: the socket call returns at once with a pending launch; the CLI then polls
// `agent.get <name>` every 100 ms (falling back to the pane id) until the agent is
// interactive_ready, and otherwise prints a client-made error (§4.4): timeout, agent_kind_mismatch,
// agent_name_not_found, agent_start_failed or agent_start_transport_failed. Like Herdr's CLI, it
// keeps polling while neither lookup finds an agent, so an agent that exits early ends in timeout.
import { parseAgentKind } from '../lib/detect.mjs';
import { parseFlags, requireFlag, UsageError } from './args.mjs';
import { request } from './client.mjs';

const POLL_MS = 100;
const DEFAULT_TIMEOUT_MS = 30_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Parses `agent start <name> --kind K --pane ID [--timeout MS] [-- args…]`; UsageError on mistakes. */
export function parseAgentStart(argv) {
  const parsed = parseFlags(argv, {
    positionals: [1, 1],
    flags: { kind: 'string', pane: 'string', timeout: 'int' },
  });
  const kindLabel = requireFlag(parsed.flags, 'kind');
  const kind = parseAgentKind(kindLabel);
  if (!kind) throw new UsageError(`error: unsupported agent kind '${kindLabel}'`);
  return {
    name: parsed.positionals[0],
    kind,
    paneId: requireFlag(parsed.flags, 'pane'),
    timeoutMs: parsed.flags.timeout,
    args: parsed.rest,
  };
}

/** Runs the start and the readiness loop; returns { stdout } or { stderr } envelopes (exit 1). */
export async function agentStart(socketPath, start) {
  const id = 'cli:agent:start';
  const params = { name: start.name, kind: start.kind, pane_id: start.paneId, args: start.args };
  if (start.timeoutMs !== undefined) params.timeout_ms = start.timeoutMs;
  const started = await request(socketPath, id, 'agent.start', params);
  if (started.error) return { stderr: started };
  const { agent: pending, argv } = started.result;
  const timeoutMs = start.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const fail = (code, message) => ({ stderr: { id, error: { code, message } } });

  // Mirrors Herdr's cli/agent.rs wait_for_named_agent, check for check.
  for (;;) {
    if (Date.now() >= deadline) {
      // One more lookup so the server releases the name of a launch whose deadline passed.
      await request(socketPath, id, 'agent.get', { target: start.name }).catch(() => undefined);
      return fail('timeout', 'timed out waiting for agent startup');
    }
    let response;
    try {
      response = await request(socketPath, id, 'agent.get', { target: start.name });
      if (response.error) response = await request(socketPath, id, 'agent.get', { target: start.paneId });
    } catch (error) {
      return fail('agent_start_transport_failed', `lost the herdr server while waiting: ${error.message}`);
    }
    const agent = response.result?.agent;
    if (agent) {
      // The server's deadline passes a moment before ours; an unnamed agent then is a timeout.
      const nameLost = () =>
        Date.now() >= deadline - 2 * POLL_MS
          ? fail('timeout', 'timed out waiting for agent startup')
          : fail('agent_name_not_found', `named agent ${start.name} no longer owns the target terminal`);
      if (agent.terminal_id !== pending.terminal_id) return nameLost();
      if (agent.agent && agent.agent !== start.kind) {
        return fail('agent_kind_mismatch', `expected ${start.kind}, detected ${agent.agent}`);
      }
      if (agent.name !== start.name) return nameLost();
      if (agent.interactive_ready) return { stdout: { id, result: { type: 'agent_started', agent, argv } } };
      if (!agent.launch_pending)
        return fail('agent_start_failed', 'agent process exited before becoming interactive');
    }
    await sleep(POLL_MS);
  }
}
