// A real MCP client (the SDK's Client over its StdioClientTransport) talking to `dogsled mcp` from
// the built bundle, as Claude Code or Codex would: the server is a child process with the given
// environment, its stderr kept for the test.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from './cli.js';

export interface ToolResult {
  isError: boolean;
  text: string;
}

export interface McpSession {
  client: Client;
  /** Calls `name`; the text of its one content item, and whether it is an error result. */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** The JSON document a successful call answered with; throws on an error result. */
  json<T = unknown>(name: string, args?: Record<string, unknown>): Promise<T>;
  stderr(): string;
  pid: number | null;
  close(): Promise<void>;
}

export async function startMcp(env: NodeJS.ProcessEnv, cwd?: string): Promise<McpSession> {
  const defined = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: defined,
    stderr: 'pipe',
    ...(cwd ? { cwd } : {}),
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'dogsled-test', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolResult> => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    const content = result.content as Array<{ type: string; text?: string }>;
    expect1(
      content.length === 1 && content[0]?.type === 'text',
      `one text item, got ${JSON.stringify(result)}`,
    );
    return { isError: result.isError === true, text: content[0]?.text ?? '' };
  };
  return {
    client,
    call,
    json: async <T>(name: string, args: Record<string, unknown> = {}) => {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${result.text}`);
      return JSON.parse(result.text) as T;
    },
    stderr: () => stderr,
    pid: transport.pid,
    close: () => client.close(),
  };
}

function expect1(ok: boolean, what: string): void {
  if (!ok) throw new Error(`expected ${what}`);
}
