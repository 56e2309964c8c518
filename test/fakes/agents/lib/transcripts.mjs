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

  assistantMessage(content, stopReason) {
    this.write({
      type: 'assistant',
      requestId: `req_fake_${randomUUID().slice(0, 8)}`,
      message: {
        id: `msg_fake_${randomUUID().slice(0, 8)}`,
        type: 'message',
        role: 'assistant',
        model: this.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: {
          input_tokens: 10,
          output_tokens: 5,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
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
    this.assistantMessage([{ type: 'tool_use', id, name, input }], 'tool_use');
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
  }

  toolCall(name, input) {
    const id = `call_fake_${randomUUID().slice(0, 12)}`;
    this.write('response_item', {
      type: 'function_call',
      name,
      arguments: JSON.stringify(input),
      call_id: id,
    });
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
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { total: 0 } },
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
