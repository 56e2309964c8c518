// The first `status` call's warm-up. A session's first call would otherwise load the status read's
// lazy modules, build its schemas and compile its code (18-32 ms where a later call takes 2-3), so
// once the client has initialized, the server runs the call (a few rounds, until a call comes) and
// drops the answers. Nothing is kept for the real call: it reads every file again, so it answers
// from the state as it is then.
//
// The warm-up must cost the session nothing but CPU while it is idle: it starts no process, reaches
// no peer, writes nothing and says nothing. So it reads with no PATH (no herdr binary is found, so
// `herdr machine list` never runs and the fleet is the config's), with the config's peers and bus
// emptied (no SSH, no bus entry read), with an aborted signal (a corrupt file is never moved aside:
// that takes its lock; the real call does it), and with its warnings dropped. Any failure ends it
// quietly: the real call meets the same cause and reports it.

import {
  CallToolRequestSchema,
  type CallToolResult,
  CallToolResultSchema,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { readStatus } from '../../service/actions/status.js';
import { mark } from '../../service/actions/timing-marks.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';
import type { ToolDefinition } from './tool.js';

/** How the server answers a call: its own callTool, so the warm-up runs the same code. */
export type AnswerCall = (tool: ToolDefinition, args: unknown, ctx: CliContext) => Promise<CallToolResult>;

/** A `tools/call` of `status` as a client sends it. */
const STATUS_CALL: JSONRPCRequest = {
  jsonrpc: '2.0',
  id: 0,
  method: 'tools/call',
  params: { name: 'status', arguments: {} },
};

/**
 * Code run once is still interpreted: a few rounds get the read's hot loops (each record's schema
 * check, the answer's escape stripping) compiled, some 0.5 ms off the first call, for 2-3 ms of CPU
 * each while the session is idle.
 */
const ROUNDS = 3;

/**
 * Runs `tool` (the status tool) as a call would, ROUNDS times, reading through a status read that
 * cannot reach beyond this host's files; no round starts once `stop` aborts (a call came, or the
 * session ended).
 * Never rejects. `refuseParams` is the server's own params check.
 */
export async function warmStatusCall(
  ctx: CliContext,
  tool: ToolDefinition,
  answer: AnswerCall,
  refuseParams: (request: JSONRPCRequest) => string | null,
  stop: AbortSignal,
): Promise<void> {
  try {
    const quiet: CliContext = Object.create(ctx, { warn: { value: () => undefined } });
    const local = async () => {
      const io = await hostIO(quiet);
      const config = { ...io.config, hosts: [], fleet: { ...io.config.fleet, bus: [] } };
      return { json: await readStatus({ ...io, env: {}, config, signal: AbortSignal.abort() }) };
    };
    let round = 0;
    for (; round < ROUNDS && !stop.aborted; round++) {
      refuseParams(STATUS_CALL);
      // The SDK checks the request and the result of every tools/call with its own schemas.
      CallToolRequestSchema.safeParse(STATUS_CALL);
      const result = await answer({ ...tool, call: local }, {}, quiet);
      CallToolResultSchema.safeParse(result);
      if (result.isError) {
        mark('mcp warm-up: the status read failed');
        return;
      }
    }
    mark(`mcp warm-up done (${round} of ${ROUNDS} rounds)`);
  } catch {
    mark('mcp warm-up: failed');
  }
}
