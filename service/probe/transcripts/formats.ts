// What one transcript record says about its session: the model in use and the agent's latest
// activity (an assistant message, a tool call, or other assistant output such as reasoning).
// Pure, one reader per harness format. Field names follow the harnesses' own files:
//   Claude Code  ~/.claude/projects/<slug>/<id>.jsonl: {type:"assistant", timestamp, message:{model, content}}
//   Codex        ~/.codex/sessions/Y/M/D/rollout-*.jsonl: {timestamp, type, payload} with turn_context.model
//   Pi           ~/.pi/agent/sessions/--<cwd>--/*.jsonl: message{role, content, provider, model}, model_change

import { isRecord, type JsonRecord } from './lines.js';
import { displayLine, toolText } from './summary.js';

export interface Activity {
  at_ms: number | null;
  kind: 'message' | 'tool' | 'other';
  text: string;
}

export interface RecordFacts {
  model?: string;
  activity?: Activity;
}

export type TranscriptFormat = 'claude' | 'codex' | 'pi';

/** The transcript format an agent kind writes; undefined for kinds without a known format. */
export function formatOf(agent: string): TranscriptFormat | undefined {
  if (agent === 'claude' || agent === 'codex' || agent === 'pi') return agent;
  // Oh My Pi is a Pi fork with the same session files.
  if (agent === 'omp') return 'pi';
  return undefined;
}

export function recordFacts(format: TranscriptFormat, record: JsonRecord): RecordFacts {
  if (format === 'claude') return claudeRecord(record);
  if (format === 'codex') return codexRecord(record);
  return piRecord(record);
}

export function claudeRecord(record: JsonRecord): RecordFacts {
  const message = record.message;
  if (record.type !== 'assistant' || !isRecord(message)) return {};
  // Claude Code writes "<synthetic>" on messages it made up itself (errors, interruptions).
  const model = text(message.model) && message.model !== '<synthetic>' ? text(message.model) : undefined;
  return { model, activity: contentActivity(message.content, isoMs(record.timestamp)) };
}

export function piRecord(record: JsonRecord): RecordFacts {
  if (record.type === 'model_change') return { model: qualified(record.provider, record.modelId) };
  const message = record.message;
  if (record.type !== 'message' || !isRecord(message) || message.role !== 'assistant') return {};
  const at = typeof message.timestamp === 'number' ? message.timestamp : isoMs(record.timestamp);
  return {
    model: qualified(message.provider, message.model),
    activity: contentActivity(message.content, at),
  };
}

export function codexRecord(record: JsonRecord): RecordFacts {
  const payload = record.payload;
  if (!isRecord(payload)) return {};
  const at = isoMs(record.timestamp);
  if (record.type === 'turn_context') return { model: text(payload.model) };
  if (record.type === 'event_msg') {
    return payload.type === 'agent_message'
      ? { activity: activity(at, 'message', text(payload.message)) }
      : {};
  }
  if (record.type !== 'response_item') return {};
  switch (payload.type) {
    case 'message': {
      if (payload.role !== 'assistant' || !Array.isArray(payload.content)) return {};
      const said = payload.content.map((block) => (isRecord(block) ? text(block.text) : undefined));
      return { activity: activity(at, 'message', said.filter(Boolean).join(' ')) };
    }
    case 'function_call':
      return { activity: tool(at, payload.name, parseArguments(payload.arguments)) };
    case 'custom_tool_call':
      return { activity: tool(at, payload.name, patchTarget(payload.input)) };
    case 'local_shell_call':
      return { activity: tool(at, 'shell', isRecord(payload.action) ? payload.action.command : undefined) };
    case 'web_search_call':
      return {
        activity: tool(at, 'web_search', isRecord(payload.action) ? payload.action.query : undefined),
      };
    case 'reasoning': {
      const summary = Array.isArray(payload.summary) ? payload.summary : [];
      const said = summary.map((part) => (isRecord(part) ? text(part.text) : undefined));
      return { activity: activity(at, 'other', said.filter(Boolean).join(' ')) };
    }
    default:
      return {};
  }
}

/**
 * Claude and Pi assistant content: a string, or blocks of which the last meaningful one is the
 * latest thing the agent did (text, tool_use/toolCall, thinking).
 */
function contentActivity(content: unknown, at: number | null): Activity | undefined {
  if (typeof content === 'string') return activity(at, 'message', content);
  if (!Array.isArray(content)) return undefined;
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i];
    if (!isRecord(block)) continue;
    let found: Activity | undefined;
    if (block.type === 'text') found = activity(at, 'message', text(block.text));
    else if (block.type === 'tool_use') found = tool(at, block.name, block.input);
    else if (block.type === 'toolCall') found = tool(at, block.name, block.arguments);
    else if (block.type === 'thinking') found = activity(at, 'other', text(block.thinking));
    if (found) return found;
  }
  return undefined;
}

function activity(at: number | null, kind: Activity['kind'], said: string | undefined): Activity | undefined {
  const line = said ? displayLine(said) : '';
  return line === '' ? undefined : { at_ms: at, kind, text: line };
}

function tool(at: number | null, name: unknown, args: unknown): Activity | undefined {
  const label = text(name);
  if (!label) return undefined;
  const line = toolText(label, args);
  return line === '' ? undefined : { at_ms: at, kind: 'tool', text: line };
}

/** Codex function_call arguments are a JSON string. */
function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** apply_patch input is a whole patch; the file it touches says more than its first line. */
function patchTarget(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  const file = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/m.exec(input)?.[1];
  return file ?? input.split('\n').find((line) => line.trim() !== '') ?? '';
}

function qualified(provider: unknown, model: unknown): string | undefined {
  const id = text(model);
  if (!id) return undefined;
  const from = text(provider);
  return from ? `${from}/${id}` : id;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isoMs(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
