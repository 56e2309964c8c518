// `mcp` as a bundle of its own (see entry.ts), with the MCP SDK and its zod inside it: a harness
// starts one server per session and waits for its `initialize` answer. Loaded from node_modules as
// ES modules, the SDK was some 200 files resolved and compiled on every start (about half a second
// here); bundled, it is one file compiled with V8's code cache. No other command loads it.
import { mcpCommand } from '../commands/mcp.js';
import { hotEntry } from './entry.js';

export const run = hotEntry('mcp', mcpCommand);
