// `dogsled mcp`: the tools of tools.ts served over stdio with the official MCP SDK, which only this
// command loads, through our own line transport (stdio-transport.ts: bounded lines, every bad line
// answered). A call's failure is the tool's error result (`dogsled: <tool>: <why>`, one plain
// line), never the server's end; params the protocol's schema refuses are one -32602 line. Every
// string an answer carries is escape-stripped: it may quote panes, logs and other agents. stdout
// belongs to the protocol, so nothing else may write there; the server ends when stdin closes.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import { startedUp } from '../../service/actions/timing-marks.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { VERSION } from '../../service/core/common/version.js';
import { cutAt, plainLine, strippedStrings } from '../../service/core/text/clean.js';
import { namedError, runCommand } from '../command.js';
import type { CliContext } from '../context.js';
import { LineTransport } from './stdio-transport.js';
import { TOOLS, type ToolAnswer, type ToolDefinition } from './tools.js';
import { warmStatusCall } from './warm-up.js';

/**
 * Serves until the client closes stdin or `signal` aborts. The SDK's low-level server, not its
 * McpServer: arguments are checked here, so a refusal is a plain line that quotes nothing raw.
 */
export async function serveMcp(ctx: CliContext, signal: AbortSignal, tools = TOOLS): Promise<void> {
  const server = new Server({ name: 'dogsled', version: VERSION }, { capabilities: { tools: {} } });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const listing = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.json,
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  // The client is initialized and about to list tools: warm the first status call meanwhile, after
  // the requests already read are answered (warm-up.ts). Its answer is dropped; nothing waits on it.
  // The first call, or the session's end, stops it between rounds: it would only compete.
  const warming = new AbortController();
  const status = byName.get('status');
  // Once it is done (or stopped by a call), the start-up is over: the bundle's code cache is written
  // then, with the status call's compiled code in it (a harness seldom lets the server exit 0).
  server.oninitialized = () =>
    setImmediate(() => {
      const warmed =
        status === undefined
          ? Promise.resolve()
          : warmStatusCall(ctx, status, callTool, refuseParams, warming.signal);
      void warmed.then(startedUp);
    });
  // Calls still running when stdin ends are answered before the server closes.
  const running = new Set<Promise<CallToolResult>>();
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = byName.get(request.params.name);
    if (tool === undefined) {
      const known = tools.map((t) => t.name).join(', ');
      throw new McpError(
        ErrorCode.InvalidParams,
        `dogsled: no tool "${plainLine(request.params.name)}" (known: ${known})`,
      );
    }
    warming.abort();
    const call = callTool(tool, request.params.arguments ?? {}, ctx);
    running.add(call);
    return call.finally(() => running.delete(call));
  });
  const transport = new LineTransport({ refuseParams, warn: (line) => ctx.warn(line) });
  const closed = new Promise<void>((resolve) => {
    void transport.ended.then(resolve);
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await closed;
  warming.abort();
  // A request read just before stdin ended reaches its handler a few microtasks later, and an
  // answer is written a few after its call settles: closing sooner would drop it unsent.
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    if (running.size === 0) break;
    await Promise.allSettled([...running]);
  }
  await server.close();
}

/** The requests this server answers, each with the schema the SDK parses its params with. */
const REQUESTS = new Map<string, { safeParse: (value: unknown) => { success: boolean; error?: unknown } }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

/**
 * Why the SDK would refuse a request's params, as one line (`tools/call: params.name: …`), or null.
 * Asked before the SDK sees the request: its own refusal is the schema error's multi-line dump.
 */
function refuseParams(request: JSONRPCRequest): string | null {
  const schema = REQUESTS.get(request.method);
  if (schema === undefined) return null;
  const parsed = schema.safeParse(request);
  if (parsed.success) return null;
  return `${plainLine(request.method)}: invalid params: ${argumentProblems(parsed.error as z.core.$ZodError)}`;
}

async function callTool(tool: ToolDefinition, args: unknown, ctx: CliContext): Promise<CallToolResult> {
  const parsed = z.safeParse(tool.input, args);
  if (!parsed.success)
    return errorResult(tool.name, new DogsledError(`arguments: ${argumentProblems(parsed.error)}`), ctx);
  let answer: ToolAnswer | undefined;
  try {
    // runCommand names the error after the tool, system errors (ENOSPC, EACCES…) included.
    await runCommand(tool.name, async () => {
      answer = await tool.call(parsed.data, ctx);
      return 0;
    });
  } catch (error) {
    return errorResult(tool.name, error, ctx);
  }
  if (answer === undefined) return errorResult(tool.name, new Error('no answer'), ctx);
  const text = 'json' in answer ? JSON.stringify(strippedStrings(answer.json)) : plainLine(answer.line);
  return { content: [{ type: 'text', text }] };
}

function errorResult(name: string, error: unknown, ctx: CliContext): CallToolResult {
  let message: string;
  if (error instanceof DogsledError) {
    const named = namedError(name, error);
    message = `dogsled: ${plainLine(named.message)}${named.hint ? ` (${plainLine(named.hint)})` : ''}`;
  } else {
    // A bug: the caller gets one line, the stack goes to stderr (the harness's MCP log).
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    ctx.warn(`dogsled: mcp: ${name}: internal error: ${text.split('\n').map(plainLine).join(' | ')}`);
    message = `dogsled: ${name}: internal error: ${plainLine(error instanceof Error ? error.message : String(error))}`;
  }
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Each problem as `path: message`, without the values: they are the caller's, and untrusted. */
function argumentProblems(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const keys =
        issue.code === 'unrecognized_keys'
          ? `unknown ${issue.keys.map((k) => `"${cutAt(plainLine(k), 40)}"`).join(', ')}`
          : issue.message;
      return path === '' ? keys : `${cutAt(plainLine(path), 80)}: ${keys}`;
    })
    .join('; ');
}
