// Transcript writers with records close to each harness's own files, so the product's transcript
// reader is tested against realistic lines. All writes are synchronous appends: a reader sees
// whole lines in order, and a crash step loses nothing already written.
// Shared interface: context(event, text), user(text), assistant(text), toolCall(name, input) -> id,
// toolResult(id, name, output, isError), prepareTurn(), turnStart(), turnEnd(lastMessage).

import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

const VERSION = '0.0.0-fake';

function appendLines(path, records) {
  if (!path || records.length === 0) return;
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

const iso = () => new Date().toISOString();

/**
 * What each model response uses unless a script says otherwise (`"usage": {...}`, or `false` for a
 * transcript without usage): the shape of a real coding turn, mostly prompt-cache reads.
 */
export const FAKE_USAGE = Object.freeze({ input: 6, output: 240, cache_read: 18_000, cache_write: 420 });

export function openTranscript(kind, session, { cwd, model, provider, thinking }) {
  if (kind === 'claude') return new ClaudeTranscript(session, cwd, model);
  if (kind === 'codex') return new CodexTranscript(session, cwd, model);
  return new PiTranscript(session, cwd, model, provider, thinking);
}

/** {type, message, uuid, parentUuid, sessionId, cwd, timestamp, ...} per Claude Code 2.x files. */
class ClaudeTranscript {
  constructor(session, cwd, model) {
    this.path = session.path;
    this.sessionId = session.id;
    this.cwd = cwd;
    this.model = model;
    this.parent = null;
    this.usage = FAKE_USAGE;
  }

  write(record) {
    const uuid = randomUUID();
    appendLines(this.path, [
      {
        parentUuid: this.parent,
        isSidechain: false,
        userType: 'external',
        cwd: this.cwd,
        sessionId: this.sessionId,
        version: VERSION,
        gitBranch: '',
        ...record,
        uuid,
        timestamp: iso(),
      },
    ]);
    this.parent = uuid;
  }

  /**
   * One API response. Like Claude Code, each content block is its own line, all with the response's
   * message id, request id and usage (so a reader must count the response once).
   */
  assistantMessage(content, stopReason) {
    const requestId = `req_fake_${randomUUID().slice(0, 8)}`;
    const id = `msg_fake_${randomUUID().slice(0, 8)}`;
    const u = this.usage;
    const usage = u
      ? {
          input_tokens: u.input,
          cache_creation_input_tokens: u.cache_write,
          cache_read_input_tokens: u.cache_read,
          cache_creation: { ephemeral_5m_input_tokens: u.cache_write, ephemeral_1h_input_tokens: 0 },
          output_tokens: u.output,
          service_tier: 'standard',
        }
      : undefined;
    content.forEach((block, i) => {
      this.write({
        type: 'assistant',
        requestId,
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: this.model,
          content: [block],
          stop_reason: i === content.length - 1 ? stopReason : null,
          stop_sequence: null,
          ...(usage ? { usage } : {}),
        },
      });
    });
  }

  context(event, text) {
    this.write({
      type: 'attachment',
      attachment: { type: 'hook_additional_context', content: [text], hookName: event, hookEvent: event },
    });
  }

  user(text) {
    this.write({ type: 'user', message: { role: 'user', content: text } });
  }

  assistant(text) {
    this.assistantMessage([{ type: 'text', text }], 'end_turn');
  }

  toolCall(name, input) {
    const id = `toolu_fake_${randomUUID().slice(0, 12)}`;
    this.assistantMessage(
      [
        { type: 'thinking', thinking: `Calling ${name}.`, signature: 'fake' },
        { type: 'tool_use', id, name, input },
      ],
      'tool_use',
    );
    return id;
  }

  toolResult(id, _name, output, isError) {
    this.write({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: isError }],
      },
      toolUseResult: { stdout: output, stderr: '', interrupted: false },
    });
  }

  prepareTurn() {}
  turnStart() {}
  turnEnd() {}
}

/** {timestamp, type, payload} lines: session_meta, turn_context, response_item, event_msg. */
class CodexTranscript {
  constructor(session, cwd, model) {
    this.path = session.path;
    this.cwd = cwd;
    this.model = model;
    this.turnId = null;
    this.prepared = null;
    this.usage = FAKE_USAGE;
    this.totals = {
      input_tokens: 0,
      cached_input_tokens: 0,
      output_tokens: 0,
      reasoning_output_tokens: 0,
      total_tokens: 0,
    };
    if (session.source !== 'resume' || !existsSync(session.path)) {
      this.write('session_meta', {
        id: session.id,
        timestamp: iso(),
        cwd,
        originator: 'codex_cli_rs',
        cli_version: VERSION,
        instructions: null,
        source: 'cli',
        model_provider: 'openai',
      });
    }
  }

  write(type, payload) {
    appendLines(this.path, [{ timestamp: iso(), type, payload }]);
  }

  /**
   * A response's token_count event, as Codex writes after each: running totals and the last
   * response's, input counting its cached part (cache writes are not billed apart), then the same
   * totals again on a rate-limit update, as Codex repeats them.
   */
  tokenCount() {
    const u = this.usage;
    if (!u) return;
    const last = {
      input_tokens: u.input + u.cache_read + u.cache_write,
      cached_input_tokens: u.cache_read,
      output_tokens: u.output,
      reasoning_output_tokens: Math.floor(u.output / 4),
      total_tokens: u.input + u.cache_read + u.cache_write + u.output,
    };
    for (const key of Object.keys(this.totals)) this.totals[key] += last[key];
    const info = {
      total_token_usage: { ...this.totals },
      last_token_usage: last,
      model_context_window: 272_000,
    };
    const rate_limits = {
      primary: { used_percent: 7, window_minutes: 300, resets_in_seconds: 9000 },
      secondary: { used_percent: 31, window_minutes: 10080, resets_in_seconds: 400000 },
    };
    this.write('event_msg', { type: 'token_count', info, rate_limits });
    this.write('event_msg', { type: 'token_count', info, rate_limits });
  }

  context(_event, text) {
    this.write('response_item', {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text }],
    });
  }

  user(text) {
    this.write('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    this.write('event_msg', { type: 'user_message', message: text, images: [] });
  }

  assistant(text) {
    this.write('response_item', {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text }],
    });
    this.write('event_msg', { type: 'agent_message', message: text });
    this.tokenCount();
  }

  toolCall(name, input) {
    const id = `call_fake_${randomUUID().slice(0, 12)}`;
    this.write('response_item', {
      type: 'function_call',
      name,
      arguments: JSON.stringify(input),
      call_id: id,
    });
    this.tokenCount();
    return id;
  }

  toolResult(id, _name, output, isError) {
    const metadata = { exit_code: isError ? 1 : 0, duration_seconds: 0.1 };
    this.write('response_item', {
      type: 'function_call_output',
      call_id: id,
      output: JSON.stringify({ output, metadata }),
    });
  }

  /** The next turn's id, known before its UserPromptSubmit hook runs (which receives it). */
  prepareTurn() {
    this.prepared = randomUUID();
    this.turnId = this.prepared;
  }

  turnStart() {
    this.turnId = this.prepared ?? randomUUID();
    this.prepared = null;
    this.write('turn_context', {
      cwd: this.cwd,
      approval_policy: 'on-request',
      sandbox_policy: { type: 'workspace-write' },
      model: this.model,
      effort: 'medium',
      summary: 'auto',
    });
    this.write('event_msg', { type: 'task_started', turn_id: this.turnId });
  }

  turnEnd(lastMessage) {
    this.write('event_msg', {
      type: 'task_complete',
      turn_id: this.turnId,
      last_agent_message: lastMessage ?? null,
    });
  }
}

/**
 * Pi session tree: a `session` header, then entries with 8-hex ids chained by parentId. Like Pi,
 * nothing reaches the file until the first assistant message exists.
 */
class PiTranscript {
  constructor(session, cwd, model, provider, thinking) {
    this.path = session.path;
    this.provider = provider;
    this.model = model;
    this.parent = null;
    this.usage = FAKE_USAGE;
    this.pending = [];
    this.flushed = session.source === 'resume' && existsSync(session.path ?? '');
    if (!this.flushed)
      this.pending.push({ type: 'session', version: 3, id: session.id, timestamp: iso(), cwd });
    this.entry({ type: 'model_change', provider, modelId: model });
    if (thinking) this.entry({ type: 'thinking_level_change', thinkingLevel: thinking });
  }

  entry(fields, assistant = false) {
    const id = randomUUID().slice(0, 8);
    const { type, ...rest } = fields;
    this.pending.push({ type, id, parentId: this.parent, timestamp: iso(), ...rest });
    this.parent = id;
    if (assistant) this.flushed = true;
    if (this.flushed) {
      appendLines(this.path, this.pending);
      this.pending = [];
    }
  }

  message(message, assistant = false) {
    this.entry({ type: 'message', message: { ...message, timestamp: Date.now() } }, assistant);
  }

  assistantMessage(content, stopReason) {
    this.message(
      {
        role: 'assistant',
        content,
        api: 'anthropic-messages',
        provider: this.provider,
        model: this.model,
        ...(this.usage ? { usage: piUsage(this.usage) } : {}),
        stopReason,
      },
      true,
    );
  }

  context(_event, text) {
    this.entry({ type: 'custom_message', customType: 'fake-hook', content: text, display: true });
  }

  user(text) {
    this.message({ role: 'user', content: [{ type: 'text', text }] });
  }

  assistant(text) {
    this.assistantMessage([{ type: 'text', text }], 'stop');
  }

  toolCall(name, input) {
    const id = `toolu_fake_${randomUUID().slice(0, 12)}`;
    this.assistantMessage([{ type: 'toolCall', id, name, arguments: input }], 'toolUse');
    return id;
  }

  toolResult(id, name, output, isError) {
    this.message({
      role: 'toolResult',
      toolCallId: id,
      toolName: name,
      content: [{ type: 'text', text: output }],
      isError,
    });
  }

  prepareTurn() {}
  turnStart() {}
  turnEnd() {}
}

/** Pi's usage record: its four counts, their total, and the cost Pi itself works out ($3/$15 per M). */
function piUsage(u) {
  const cost = {
    input: (u.input * 3) / 1e6,
    output: (u.output * 15) / 1e6,
    cacheRead: (u.cache_read * 0.3) / 1e6,
    cacheWrite: (u.cache_write * 3.75) / 1e6,
  };
  return {
    input: u.input,
    output: u.output,
    cacheRead: u.cache_read,
    cacheWrite: u.cache_write,
    totalTokens: u.input + u.output + u.cache_read + u.cache_write,
    cost: { ...cost, total: cost.input + cost.output + cost.cacheRead + cost.cacheWrite },
  };
}

/** The tool each harness uses to run a shell command, with its argument shape. */
export function shellTool(kind, command) {
  if (kind === 'claude') return { name: 'Bash', input: { command, description: 'Run a command' } };
  if (kind === 'codex') return { name: 'exec_command', input: { cmd: command } };
  return { name: 'bash', input: { command } };
}

/** The tool each harness reads a file with. */
export function readTool(kind, path) {
  if (kind === 'claude') return { name: 'Read', input: { file_path: path } };
  if (kind === 'codex') return { name: 'exec_command', input: { cmd: `cat ${path}` } };
  return { name: 'read', input: { path } };
}
