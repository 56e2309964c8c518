// The dogsled MCP tools in Pi (spec, "Tools" and "Pi"): Pi has no MCP client of its own, so the
// extension registers the server itself. At session start it asks `$DOGSLED_BIN mcp` for its
// `tools/list` and registers each tool as `mcp__dogsled__<name>` with the server's own description
// and JSON Schema; each call is one short MCP exchange with a fresh `dogsled mcp` (initialize, the
// request, stdin closed: the server answers what it read, then exits). So Pi's tools are exactly the
// binary's, a call's answer is exactly what Claude Code and Codex get, and nothing stays running.
// A tool's error result becomes a thrown error, which is how Pi marks a tool call as failed.

import { type RunResult, runDogsled, SpawnError } from '../../../service/actions/dogsled-call.js';
import { lastLine } from './binary.js';
import { dogsledBin, type PiDeps } from './deps.js';
import type { ExtensionAPI } from './pi-api.js';

export const TOOL_PREFIX = 'mcp__dogsled__';
/** The server's own call budget is 55 s (cli/mcp/tool.ts); this leaves room for its start. */
const CALL_MS = 65_000;
const LIST_MS = 15_000;
const OUTPUT_MAX = 8 * 1024 * 1024;
const PROTOCOL = '2025-06-18';

export interface ServerTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

interface Answer {
  result?: unknown;
  error?: { message?: unknown };
}

/** One exchange: initialize, then `method`; the answer to it, or an Error saying why there is none. */
async function exchange(
  deps: PiDeps,
  method: string,
  params: unknown,
  options: { timeoutMs: number; cwd?: string; signal?: AbortSignal },
): Promise<Answer> {
  const lines = [
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL,
        capabilities: {},
        clientInfo: { name: 'pi-dogsled', version: deps.version },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method, params },
  ];
  const bin = dogsledBin(deps);
  let result: RunResult;
  try {
    result = await runDogsled(bin, ['mcp'], {
      env: deps.env,
      input: lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
      timeoutMs: options.timeoutMs,
      maxOutputBytes: OUTPUT_MAX,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    const code = error instanceof SpawnError ? error.code : String(error);
    throw new Error(`dogsled: cannot run ${lastLine(bin)}: ${code}`);
  }
  for (const line of result.stdout.toString('utf8').split('\n')) {
    let answer: Answer & { id?: unknown };
    try {
      answer = JSON.parse(line);
    } catch {
      continue;
    }
    if (answer?.id === 1) return answer;
  }
  const why = result.timedOut
    ? `no answer within ${options.timeoutMs / 1000} s`
    : result.truncated
      ? 'answer too large'
      : lastLine(result.stderr.toString('utf8')) ||
        (result.signal !== null ? `killed by ${result.signal}` : `exit ${result.exitCode}`);
  throw new Error(`dogsled: mcp: ${why}`);
}

/** The server's tools, each checked for the fields Pi needs; anything else is left out. */
export async function listServerTools(deps: PiDeps): Promise<ServerTool[]> {
  const answer = await exchange(deps, 'tools/list', {}, { timeoutMs: LIST_MS });
  if (answer.error !== undefined) throw new Error(`dogsled: mcp: ${lastLine(String(answer.error.message))}`);
  const tools = (answer.result as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) throw new Error('dogsled: mcp: tools/list answered without tools');
  return tools.flatMap((raw) => {
    const tool = raw as Partial<ServerTool> | null;
    if (typeof tool?.name !== 'string' || !/^[a-z][a-z_]{0,39}$/.test(tool.name)) return [];
    if (tool.inputSchema === null || typeof tool.inputSchema !== 'object') return [];
    return [{ name: tool.name, description: String(tool.description ?? ''), inputSchema: tool.inputSchema }];
  });
}

/** Calls one tool; its text, or an Error carrying the tool's one-line refusal. */
export async function callServerTool(
  deps: PiDeps,
  name: string,
  args: unknown,
  options: { cwd?: string; signal?: AbortSignal } = {},
): Promise<string> {
  const answer = await exchange(
    deps,
    'tools/call',
    { name, arguments: args ?? {} },
    { timeoutMs: CALL_MS, ...options },
  );
  if (answer.error !== undefined) throw new Error(lastLine(String(answer.error.message)));
  const result = answer.result as { content?: Array<{ type?: string; text?: unknown }>; isError?: boolean };
  const text = (result?.content ?? [])
    .filter((item) => item?.type === 'text' && typeof item.text === 'string')
    .map((item) => item.text as string)
    .join('\n');
  if (result?.isError === true) throw new Error(text || `dogsled: ${name}: failed`);
  return text;
}

/** Registers every server tool as `mcp__dogsled__<name>`; returns the names registered. */
export async function registerServerTools(pi: ExtensionAPI, deps: PiDeps): Promise<string[]> {
  const tools = await listServerTools(deps);
  for (const tool of tools) {
    pi.registerTool({
      name: `${TOOL_PREFIX}${tool.name}`,
      label: `dogsled ${tool.name}`,
      description: tool.description,
      parameters: tool.inputSchema,
      execute: async (_id, params, signal, _onUpdate, ctx) => {
        const text = await callServerTool(deps, tool.name, params, {
          cwd: ctx.cwd,
          ...(signal === undefined ? {} : { signal }),
        });
        return { content: [{ type: 'text', text }], details: { tool: tool.name } };
      },
    });
  }
  return tools.map((tool) => `${TOOL_PREFIX}${tool.name}`);
}
