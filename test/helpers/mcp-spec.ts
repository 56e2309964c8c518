// The MCP tools the spec names, in its order: both what cli/mcp/tools.ts holds and what a real
// client's `tools/list` shows are held to this one list, written out here rather than taken from
// the code under test.

export const SPEC_TOOLS = [
  'status',
  'spawn',
  'run',
  'send',
  'inbox',
  'read',
  'close',
  'done',
  'stop',
  'cancel',
  'place',
] as const;
