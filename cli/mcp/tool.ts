// What an MCP tool is: a name, a description for the model, its argument schema (zod, with the
// JSON Schema `tools/list` shows) and the call that answers it. Shared by tools.ts and
// agent-tools.ts, and the one-call budget every tool runs under.

import type * as z from 'zod/mini';
import type { CliContext } from '../context.js';
import type { InputJson } from './inputs.js';

/**
 * One tool call's budget. Codex gives a tool 60 seconds by default; a call that runs out ends with
 * its own one-line error just before that, instead of the client's timeout and a call left running.
 */
export const TOOL_CALL_MS = 55_000;

/** What a tool answers: a JSON document (the command's `--json`) or the command's line. */
export type ToolAnswer = { json: unknown } | { line: string };

export interface ToolDefinition {
  name: string;
  description: string;
  /** The zod schema the arguments are parsed with, and its JSON Schema for `tools/list`. */
  input: z.ZodMiniType;
  json: InputJson;
  // biome-ignore lint/suspicious/noExplicitAny: the arguments as the schema parsed them.
  call: (args: any, ctx: CliContext) => Promise<ToolAnswer>;
}

export function tool<A>(
  name: string,
  description: string,
  [input, json]: [z.ZodMiniType, InputJson],
  call: (args: A, ctx: CliContext) => Promise<ToolAnswer>,
): ToolDefinition {
  return { name, description, input, json, call };
}
