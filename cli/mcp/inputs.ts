// The input schemas of every MCP tool, in one place: what a tool call may carry, as the command
// line's flags carry it (a duration is the same text `--timeout` takes, a host the same id or label).
// The zod schema checks shapes and refuses unknown keys; values are then read by the CLI's own flag
// parsers (flags.ts), so a tool and a command refuse the same input with the same reason.
//
// Each schema's JSON Schema (what `tools/list` shows) is written out beside it, with descriptions
// for the model: zod's toJSONSchema would keep its generator in the chunks every command loads.
// test/unit/cli/mcp-inputs.test.ts holds each one equal to zod's own conversion.

import * as z from 'zod/mini';

/** JSON Schema of a tool's arguments, as MCP lists it. */
export interface InputJson {
  type: 'object';
  properties: Record<string, object>;
  required?: string[];
  additionalProperties: false;
}

/**
 * Text a tool passes on to files, panes and other agents is well-formed UTF-16: a lone surrogate,
 * which JSON can carry, would be written as U+FFFD, another name than the one asked for.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = z.refine<string>(
  (value) => !LONE_SURROGATE.test(value),
  'must be well-formed Unicode text',
);
const text = z.string().check(z.minLength(1), wellFormed);
const id = text.check(z.maxLength(200));
const duration = z.optional(text.check(z.maxLength(40)));

const idJson = (description: string) => ({ type: 'string', minLength: 1, maxLength: 200, description });
const durationJson = (description: string) => ({ type: 'string', minLength: 1, maxLength: 40, description });
const HOST = 'A host id or label to pin to (default: the host with the most headroom)';
const DURATION = 'an integer with ms, s, m or h, longer than 0 and at most 8760h';

const none: InputJson = { type: 'object', properties: {}, additionalProperties: false };

export const StatusInput = z.strictObject({});
export const StatusJson = none;

export const PlaceInput = z.strictObject({ host: z.optional(id) });
export const PlaceJson: InputJson = {
  type: 'object',
  properties: { host: idJson(HOST) },
  additionalProperties: false,
};

export const SpawnInput = z.strictObject({
  kind: z.enum(['pi', 'claude', 'codex']),
  name: id,
  message: text,
  profile: z.optional(id),
  branch: z.optional(id),
  base: z.optional(id),
  host: z.optional(id),
  cwd: z.optional(text),
});
export const SpawnJson: InputJson = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['pi', 'claude', 'codex'], description: 'The harness of the child' },
    name: idJson("The child's name: its Herdr name, and what read and send call it"),
    message: {
      type: 'string',
      minLength: 1,
      description: 'The whole task (at most 1 MiB); it travels as a file, never typed into a terminal',
    },
    profile: idJson('A Pi profile (Pi children only)'),
    branch: idJson('Start the child in a new worktree on this branch'),
    base: idJson('The ref the branch starts from (with branch; default: the default branch)'),
    host: idJson(HOST),
    cwd: {
      type: 'string',
      minLength: 1,
      description: "The directory (or repository, with branch) to work in (default: this server's)",
    },
  },
  required: ['kind', 'name', 'message'],
  additionalProperties: false,
};

export const RunInput = z.strictObject({
  command: z.array(z.string().check(wellFormed)).check(z.minLength(1)),
  cwd: z.optional(text),
  host: z.optional(id),
  timeout: duration,
  idle_timeout: duration,
});
export const RunJson: InputJson = {
  type: 'object',
  properties: {
    command: {
      minItems: 1,
      type: 'array',
      items: { type: 'string' },
      description: 'The program and its arguments, one per item (an argv, never a shell string)',
    },
    cwd: {
      type: 'string',
      minLength: 1,
      description: 'The directory to run in (default: the directory this server runs in)',
    },
    host: idJson(HOST),
    timeout: durationJson(`Kill the job after this long: ${DURATION}`),
    idle_timeout: durationJson(`Kill the job after this long without output: ${DURATION}`),
  },
  required: ['command'],
  additionalProperties: false,
};

export const SendInput = z.strictObject({
  target: id,
  message: z.string().check(wellFormed),
  kind: z.optional(id),
  host: z.optional(id),
});
export const SendJson: InputJson = {
  type: 'object',
  properties: {
    target: idJson("The agent's Herdr name, or its pane id"),
    message: { type: 'string', description: 'The text, at most 4 MiB' },
    kind: idJson(
      'message (default), task, reply, blocked, admission, launch_failed, check_in or undelivered',
    ),
    host: idJson("The target's host (only this host in this build)"),
  },
  required: ['target', 'message'],
  additionalProperties: false,
};

export const InboxInput = z.strictObject({});
export const InboxJson = none;

export const StopInput = z.strictObject({ job: id });
export const StopJson: InputJson = {
  type: 'object',
  properties: { job: idJson('A job id, or the ticket a queued run returned') },
  required: ['job'],
  additionalProperties: false,
};

export const CancelInput = z.strictObject({ ticket: id });
export const CancelJson: InputJson = {
  type: 'object',
  properties: { ticket: idJson('A pending ticket') },
  required: ['ticket'],
  additionalProperties: false,
};

export const ReadInput = z.strictObject({ target: id, host: z.optional(id) });
export const ReadJson: InputJson = {
  type: 'object',
  properties: {
    target: idJson("A child's name, or an item, pane, launch or job id"),
    host: idJson("The target's host (only this host in this build)"),
  },
  required: ['target'],
  additionalProperties: false,
};

export const CloseInput = z.strictObject({ pane: id, host: z.optional(id) });
export const CloseJson: InputJson = {
  type: 'object',
  properties: {
    pane: idJson("The child's pane id (w2:p1)"),
    host: idJson("The pane's host (default: the host of its open item, else this one)"),
  },
  required: ['pane'],
  additionalProperties: false,
};

export const DoneInput = z.strictObject({});
export const DoneJson = none;

export type PlaceArgs = z.infer<typeof PlaceInput>;
export type SpawnArgs = z.infer<typeof SpawnInput>;
export type ReadArgs = z.infer<typeof ReadInput>;
export type CloseArgs = z.infer<typeof CloseInput>;
export type RunArgs = z.infer<typeof RunInput>;
export type SendArgs = z.infer<typeof SendInput>;
export type StopArgs = z.infer<typeof StopInput>;
export type CancelArgs = z.infer<typeof CancelInput>;
