// `dogsled mcp`: serves the dogsled tools over MCP stdio (cli/mcp/server.ts) until the harness
// closes stdin, or SIGTERM/SIGINT. The SDK is loaded here and nowhere else, so no other command
// pays for it.

import type { CliContext } from '../context.js';
import { untilStopped } from '../stop-signal.js';

export async function mcpCommand(_flags: object, ctx: CliContext): Promise<number> {
  const { serveMcp } = await import('../mcp/server.js');
  await untilStopped((signal) => serveMcp(ctx, signal));
  return 0;
}
