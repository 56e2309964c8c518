// What a fake agent does, as a script a test writes into the task file (or any prompt):
//   ```fake-agent
//   {"steps": [{"work_ms": 300}, {"run": "dogsled done"}, {"reply": "Finished."}]}
//   ```
// or one line `fake-agent: {"steps": [...]}`; a bare array is the steps alone. $FAKE_AGENT_SCRIPT
// (a JSON file) is the fallback for the launch prompt. Task files are found the way the real
// harnesses get them: Pi's @file arguments, and for Claude and Codex any absolute path ending in
// .md that appears in the prompt and exists (".task.md" first).

import { existsSync, readFileSync, statSync } from 'node:fs';

export const STEP_KINDS = ['reply', 'work_ms', 'sleep_ms', 'hang', 'ask', 'crash', 'run', 'stop'];

export class ScriptError extends Error {}

/** The script inside a text, or null when it has none. Throws ScriptError for a broken one. */
export function scriptIn(text) {
  const fenced = /```fake-agent[^\n]*\n([\s\S]*?)```/.exec(text);
  const inline = /^\s*fake-agent:\s*(.+)$/m.exec(text);
  const source = fenced?.[1] ?? inline?.[1];
  if (source === undefined) return null;
  let value;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new ScriptError(`fake-agent script is not JSON: ${error.message}`);
  }
  return normalise(value);
}

export function scriptFromFile(path) {
  let value;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ScriptError(`FAKE_AGENT_SCRIPT ${path}: ${error.message}`);
  }
  return normalise(value);
}

function normalise(value) {
  const script = Array.isArray(value) ? { steps: value } : value;
  if (!script || typeof script !== 'object' || !Array.isArray(script.steps)) {
    throw new ScriptError('fake-agent script needs {"steps": [...]}');
  }
  const onBlock = script.on_stop_block ?? null;
  if (onBlock !== null && !Array.isArray(onBlock))
    throw new ScriptError('on_stop_block must be a list of steps');
  [...script.steps, ...(onBlock ?? [])].forEach(checkStep);
  if (script.herdr_reports !== undefined && typeof script.herdr_reports !== 'boolean')
    throw new ScriptError('herdr_reports must be true or false');
  return { steps: script.steps, onStopBlock: onBlock, herdrReports: script.herdr_reports ?? true };
}

function checkStep(step) {
  const keys = step && typeof step === 'object' ? Object.keys(step) : [];
  const kind = keys.find((key) => STEP_KINDS.includes(key));
  if (!kind || keys.length !== 1) {
    throw new ScriptError(
      `fake-agent step ${JSON.stringify(step)} must have exactly one of ${STEP_KINDS.join(', ')}`,
    );
  }
  const value = step[kind];
  const numeric = kind === 'work_ms' || kind === 'sleep_ms' || kind === 'crash';
  const text = kind === 'reply' || kind === 'ask' || kind === 'run';
  if ((numeric && !Number.isInteger(value)) || (text && typeof value !== 'string')) {
    throw new ScriptError(`fake-agent step ${JSON.stringify(step)} has a value of the wrong type`);
  }
}

/** Absolute .md paths named in a prompt that exist as files, task files first. */
export function taskFilesIn(prompt) {
  const found = [];
  for (const match of prompt.matchAll(/\/[^\s"'`<>()]*?\.md\b/g)) {
    const path = match[0];
    if (found.includes(path)) continue;
    try {
      if (existsSync(path) && statSync(path).isFile()) found.push(path);
    } catch {
      // an unreadable candidate is not a task file
    }
  }
  return found.sort((a, b) => Number(b.endsWith('.task.md')) - Number(a.endsWith('.task.md')));
}

/** Reads files, returning [{path, text}] and skipping any that cannot be read. */
export function readFiles(paths) {
  const files = [];
  for (const path of paths) {
    try {
      files.push({ path, text: readFileSync(path, 'utf8') });
    } catch (error) {
      process.stderr.write(`fake agent: cannot read ${path}: ${error.message}\n`);
    }
  }
  return files;
}
