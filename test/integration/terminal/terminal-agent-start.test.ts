// The socket agent start's confirmation loop (CONTRACT §4.2, §4.4) against a scripted server whose
// `agent.get` answers come from a list, so each way a launch can end is reproduced exactly.

import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAgentWithReadiness } from '../../../service/terminal/herdr/herdr-agent-start.js';
import { SocketTransport } from '../../../service/terminal/herdr/herdr-channel.js';
import { isFinalRefusal, TerminalError } from '../../../service/terminal/terminal-errors.js';
import { tempDir } from '../../helpers/tree.js';

type Answer = { agent: Record<string, unknown> } | { error: string };

let dir: string;
let server: Server | undefined;

beforeEach(async () => {
  dir = await tempDir('dogsled-start-');
});

afterEach(async () => {
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const base = {
  terminal_id: 'term_1',
  workspace_id: 'w1',
  tab_id: 'w1:t1',
  pane_id: 'w1:p2',
  focused: false,
  agent_status: 'unknown',
  state_change_seq: 0,
};

/** A Herdr that answers agent.start with `start` and each agent.get from `gets` (the last repeats). */
async function scripted(start: Answer, gets: Answer[]) {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  const path = join(dir, 'h.sock');
  server = createServer((socket) => {
    socket.setEncoding('utf8');
    socket.on('error', () => {}); // a client gone mid-request must not fail the run
    socket.once('data', (line: string) => {
      const request = JSON.parse(line.split('\n')[0]!);
      calls.push({ method: request.method, params: request.params });
      const answer = request.method === 'agent.start' ? start : (gets.length > 1 ? gets.shift() : gets[0])!;
      const body =
        'error' in answer
          ? { error: { code: answer.error, message: answer.error } }
          : {
              result:
                request.method === 'agent.start'
                  ? { type: 'agent_started', agent: answer.agent, argv: ['codex'] }
                  : { type: 'agent_info', agent: answer.agent },
            };
      socket.end(`${JSON.stringify({ id: request.id, ...body })}\n`);
    });
  });
  await new Promise<void>((resolve) => server!.listen(path, resolve));
  return { transport: new SocketTransport(path), calls };
}

const pending = { agent: { ...base, name: 'rev', launch_pending: true } };
const options = { name: 'rev', kind: 'codex', paneId: 'w1:p2', timeoutMs: 5_000 };

async function failure(promise: Promise<unknown>): Promise<TerminalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

describe('the readiness loop', () => {
  it('returns the agent once Herdr marks it interactive-ready, polling agent.get by name', async () => {
    const ready = {
      agent: { ...base, name: 'rev', agent: 'codex', interactive_ready: true, agent_status: 'idle' },
    };
    const { transport, calls } = await scripted(pending, [pending, pending, ready]);
    const started = await startAgentWithReadiness(transport, options, 10);
    expect(started.agent.interactive_ready).toBe(true);
    expect(started.argv).toEqual(['codex']);
    expect(calls[0]).toEqual({
      method: 'agent.start',
      params: { name: 'rev', kind: 'codex', pane_id: 'w1:p2', timeout_ms: 5_000 },
    });
    expect(calls.slice(1).every((c) => c.method === 'agent.get' && c.params.target === 'rev')).toBe(true);
  });

  it('returns as soon as Herdr detects the requested kind under the name, before it is ready', async () => {
    // A child that works on its task from its launch prompt is ready only at the end of its first
    // turn (CONTRACT §4.4); that it runs is known as soon as Herdr detects it.
    const working = {
      agent: { ...base, name: 'rev', agent: 'codex', launch_pending: true, agent_status: 'working' },
    };
    // Found by its process but not yet read (`unknown`): not yet confirmed.
    const found = { agent: { ...base, name: 'rev', agent: 'codex', launch_pending: true } };
    const { transport, calls } = await scripted(pending, [pending, found, working, pending]);
    const started = await startAgentWithReadiness(transport, options, 10);
    expect(started.agent).toMatchObject({ agent: 'codex', agent_status: 'working', launch_pending: true });
    expect(started.agent.interactive_ready).toBeUndefined();
    expect(calls.filter((c) => c.method === 'agent.get')).toHaveLength(3);
  });

  it('fails as agent_start_failed when the launch stops pending before Herdr detected anything', async () => {
    const settled = { agent: { ...base, name: 'rev' } };
    const { transport } = await scripted(pending, [pending, settled]);
    const error = await failure(startAgentWithReadiness(transport, options, 10));
    expect(error.code).toBe('agent_start_failed');
    expect(isFinalRefusal(error)).toBe(false);
  });

  it('fails as agent_kind_mismatch when Herdr detects another agent kind', async () => {
    const other = { agent: { ...base, name: 'rev', agent: 'claude', launch_pending: true } };
    const { transport } = await scripted(pending, [other]);
    expect((await failure(startAgentWithReadiness(transport, options, 10))).code).toBe('agent_kind_mismatch');
  });

  it('fails as agent_name_not_found when the name now belongs to another terminal', async () => {
    const moved = { agent: { ...base, terminal_id: 'term_2', name: 'rev', launch_pending: true } };
    const { transport } = await scripted(pending, [moved]);
    const error = await failure(startAgentWithReadiness(transport, options, 10));
    expect(error.code).toBe('agent_name_not_found');
  });

  it('fails as agent_name_not_found when Herdr cleared the name but the pane still hosts the agent', async () => {
    const unnamed = { agent: { ...base, agent: 'codex' } };
    const { transport, calls } = await scripted(pending, [{ error: 'agent_not_found' }, unnamed]);
    const error = await failure(startAgentWithReadiness(transport, options, 10));
    expect(error.code).toBe('agent_name_not_found');
    expect(calls.map((c) => c.params.target)).toEqual([undefined, 'rev', 'w1:p2']);
  });

  it('fails as agent_start_failed when neither the name nor the pane leads to an agent', async () => {
    const { transport, calls } = await scripted(pending, [{ error: 'agent_not_found' }]);
    const error = await failure(startAgentWithReadiness(transport, options, 10));
    expect(error.code).toBe('agent_start_failed');
    expect(calls.map((c) => c.params.target)).toEqual([undefined, 'rev', 'w1:p2']);
  });

  it('fails as timeout at the deadline and reads the agent once more so Herdr releases the name', async () => {
    const { transport, calls } = await scripted(pending, [pending]);
    const error = await failure(startAgentWithReadiness(transport, { ...options, timeoutMs: 200 }, 20));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('timed out waiting for agent startup');
    const gets = calls.filter((c) => c.method === 'agent.get');
    expect(gets.length).toBeGreaterThanOrEqual(2);
  });

  it('passes a refusal of agent.start through as a final refusal without polling', async () => {
    const { transport, calls } = await scripted({ error: 'agent_pane_busy' }, [pending]);
    const error = await failure(startAgentWithReadiness(transport, options, 10));
    expect(error.code).toBe('agent_pane_busy');
    expect(isFinalRefusal(error)).toBe(true);
    expect(calls).toHaveLength(1);
  });
});
