// The hooks a real harness runs, from the files it reads them from, with the JSON it sends on stdin
// and the outputs it honours.
//   Claude Code: ~/.claude/settings.json, <cwd>/.claude/settings.json, <cwd>/.claude/settings.local.json,
//     each --settings (file or inline JSON), each --plugin-dir DIR's hooks/hooks.json (CLAUDE_PLUGIN_ROOT=DIR).
//   Codex: ~/.codex/hooks.json (the real CLI also wants `[features] codex_hooks = true`; the fake does not).
//   Shape: {"hooks": {"SessionStart": [{"matcher"?: "startup|resume", "hooks": [{"type": "command",
//     "command": "...", "timeout"?: seconds}]}], "UserPromptSubmit": [...], "Stop": [...]}}
// Outputs: exit 0 with JSON {decision:"block", reason}, {continue:false, stopReason},
// {hookSpecificOutput:{additionalContext}}, {systemMessage}; exit 0 with plain text = context for
// SessionStart/UserPromptSubmit; exit 2 = block with stderr as the reason; other codes = warning.
// Pi has extensions, not hooks: the fake pi reads a FAKE-ONLY ~/.pi/agent/fake-hooks.json instead,
// {"session_start": [cmd], "before_agent_start": [cmd], "agent_before_settle": [cmd], "agent_end": [cmd]},
// where a command's stdout is context (session_start, before_agent_start) or a continuation
// message (agent_before_settle), the way Pi extensions return them.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function readJson(path) {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    process.stderr.write(`fake agent: ignoring unreadable hook file ${path}: ${error.message}\n`);
    return null;
  }
}

/** [{event, matcher, command, timeoutSec, env}] from every source, in load order. */
export function loadHooks(kind, { home, cwd, launch }) {
  const hooks = [];
  const addConfig = (config, env = {}) => {
    const table = config?.hooks;
    if (!table || typeof table !== 'object') return;
    for (const [event, groups] of Object.entries(table)) {
      if (!Array.isArray(groups)) continue;
      for (const group of groups) {
        for (const hook of group?.hooks ?? []) {
          if (hook?.type !== 'command' || typeof hook.command !== 'string') continue;
          let command = hook.command;
          if (env.CLAUDE_PLUGIN_ROOT) {
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder Claude Code substitutes
            command = command.replaceAll('${CLAUDE_PLUGIN_ROOT}', env.CLAUDE_PLUGIN_ROOT);
          }
          hooks.push({ event, matcher: group.matcher, command, timeoutSec: hook.timeout, env });
        }
      }
    }
  };
  if (kind === 'claude') {
    addConfig(readJson(join(home, '.claude', 'settings.json')));
    addConfig(readJson(join(cwd, '.claude', 'settings.json')));
    addConfig(readJson(join(cwd, '.claude', 'settings.local.json')));
    for (const settings of launch.settings) {
      addConfig(settings.trim().startsWith('{') ? JSON.parse(settings) : readJson(settings));
    }
    for (const dir of launch.pluginDirs) {
      addConfig(readJson(join(dir, 'hooks', 'hooks.json')), { CLAUDE_PLUGIN_ROOT: dir });
    }
  } else if (kind === 'codex') {
    addConfig(readJson(join(home, '.codex', 'hooks.json')));
  } else {
    const fake = readJson(join(home, '.pi', 'agent', 'fake-hooks.json')) ?? {};
    for (const [event, commands] of Object.entries(fake)) {
      for (const command of Array.isArray(commands) ? commands : []) {
        if (typeof command === 'string')
          hooks.push({ event, matcher: undefined, command, timeoutSec: 60, env: {} });
      }
    }
  }
  return hooks;
}

function matches(matcher, value) {
  if (matcher === undefined || matcher === null || matcher === '' || matcher === '*') return true;
  if (value === undefined) return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(value);
  } catch {
    return matcher === value;
  }
}

function runCommand(command, { cwd, env, input, timeoutSec }) {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), (timeoutSec ?? 60) * 1000);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: 127, stdout, stderr: stderr + error.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(`${JSON.stringify(input)}\n`);
  });
}

function parseJsonObject(text) {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const value = JSON.parse(trimmed);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Runs the hooks for `event` in order and folds their outputs.
 * @returns {Promise<{ran: object[], contexts: string[], block: string|null, stop: string|null, messages: string[]}>}
 */
export async function runHooks(hooks, event, { matchValue, input, cwd, env, plainTextIsContext }) {
  const result = { ran: [], contexts: [], block: null, stop: null, messages: [] };
  for (const hook of hooks) {
    if (hook.event !== event || !matches(hook.matcher, matchValue)) continue;
    const out = await runCommand(hook.command, {
      cwd,
      env: { ...env, ...hook.env },
      input,
      timeoutSec: hook.timeoutSec,
    });
    result.ran.push({ command: hook.command, code: out.code, stdout: out.stdout, stderr: out.stderr });
    if (out.code === 2) {
      result.block ??= out.stderr.trim() || `${event} hook exited 2`;
      continue;
    }
    if (out.code !== 0) {
      result.messages.push(`${event} hook failed (${out.code}): ${out.stderr.trim()}`);
      continue;
    }
    const json = parseJsonObject(out.stdout);
    if (!json) {
      if (plainTextIsContext && out.stdout.trim() !== '') result.contexts.push(out.stdout.trim());
      continue;
    }
    if (json.continue === false) result.stop ??= typeof json.stopReason === 'string' ? json.stopReason : '';
    if (json.decision === 'block') result.block ??= typeof json.reason === 'string' ? json.reason : '';
    const extra = json.hookSpecificOutput?.additionalContext;
    if (typeof extra === 'string' && extra !== '') result.contexts.push(extra);
    if (typeof json.systemMessage === 'string' && json.systemMessage !== '')
      result.messages.push(json.systemMessage);
  }
  return result;
}
